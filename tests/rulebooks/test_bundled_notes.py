"""Notes, errata and rolls of the bundled books only where they apply: a resolution carries what
the situation calls for, nothing that the source ties to another situation."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import run_cli

pytestmark = pytest.mark.usefixtures("at_root")


def resolved(book: str, *args: str) -> dict[str, Any]:
    result = run_cli("resolve", book, *args, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.output)
    return data


def notes(data: dict[str, Any]) -> list[str]:
    return [note["quote"] or note["text"] for note in data["notes"]]


def test_forest_adjustment_errata_only_where_a_vehicle_enters_a_forest() -> None:
    assert notes(resolved("mecha_tables", "terrain_movement", "--set", "unit=wheel")) == []
    assert notes(resolved("mecha_tables", "terrain_movement", "--set", "unit=wheel", "--set", "forest=open")) == [
        "-2 Levels",
        "Standard Entry",
    ]


def test_high_wind_erratum_only_in_high_wind() -> None:
    fog = notes(resolved("mecha_tables", "weather", "--set", "weather=heavy_fog"))
    assert not any("Wind" in note for note in fog)
    wind = notes(resolved("mecha_tables", "weather", "--set", "weather=high_wind", "--set", "weapon=missile"))
    assert "Hvy Wind  -1 to hit  ...  -2 penalty to hit for missiles" in wind


def test_vacuum_has_no_skill_roll_unless_a_roll_involves_sight() -> None:
    plain = resolved("spot_rules_e_to_z", "vacuum")
    assert [r["name"] for r in plain["rolls"]] == ["remember_exhale", "eardrums"]
    sight = resolved("spot_rules_e_to_z", "vacuum", "--set", "sight_roll=yes", "--set", "vacuum_round=21")
    (hit,) = [r for r in sight["rolls"] if r["name"] == "hit"]
    assert hit["probability"] == {"fraction": "1/4", "float": 0.25}  # Difficult: 50 -> 25
    # Light sources: the skill roll only when the light must be used with care.
    assert all(r["name"] != "hit" for r in resolved("spot_rules_e_to_z", "light_sources")["rolls"])
    careful = resolved("spot_rules_e_to_z", "light_sources", "--set", "careful_light=yes")
    assert [r["name"] for r in careful["rolls"]] == ["hit"]


def test_white_noise_says_nothing_of_msv_troopers_to_others() -> None:
    # Without a Multispectral Visor a White Noise Zone does nothing: only its definition applies.
    assert notes(resolved("terrain_cards", "white_noise")) == [
        "A White Noise Zone acts as a Zero Visibility Zone, but only for troopers equipped with a "
        "Multispectral Visor (MSV) of any Level."
    ]
    msv = notes(resolved("terrain_cards", "white_noise", "--set", "msv=yes"))
    aro = [note for note in msv if note.startswith("The ONLY ARO")]
    assert len(aro) == 1 and "-6*" in msv
