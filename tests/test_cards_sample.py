"""The fixed sample of situations that tells cards which conditions imply others is drawn from the
generator's bits: the same values `random.choice`, `random.randint` and `random.random` draw."""

from __future__ import annotations

import random

from dsl import model as m
from dsl import types as t
from dsl.cards.effects import _SAMPLES, _draw, _situations
from dsl.compiler import compile_file
from dsl.resources import bundled_rulebooks_dir
from dsl.runtime.dice import Value


def drawn_by_random(book: m.Book) -> list[dict[str, Value]]:
    """The sample as `random`'s own functions draw it, name by name in sorted order."""
    rng = random.Random(0)
    names = [name for name in sorted(book.vars) if isinstance(book.vars[name].type, (t.Flag, t.Enum, t.Numeric))]
    sample = []
    for _ in range(_SAMPLES):
        values: dict[str, Value] = {}
        for name in names:
            kind = book.vars[name].type
            if isinstance(kind, t.Flag):
                values[name] = rng.random() < 0.5
            elif isinstance(kind, t.Enum):
                values[name] = rng.choice(kind.members)
            else:
                assert isinstance(kind, t.Numeric)
                low = int(kind.low) if kind.low is not None else 0
                high = int(kind.high) if kind.high is not None else low + 30
                values[name] = rng.randint(low, max(low, high))
        sample.append(values)
    return sample


def test_every_bundled_book_s_sample_is_the_one_random_draws() -> None:
    drawn = 0
    for path in sorted(bundled_rulebooks_dir().glob("*.rules")):
        book = compile_file(path).book
        assert book is not None
        expected = drawn_by_random(book)
        assert [situation.values for situation in _situations(book)] == expected, book.name
        drawn += len(expected[0])
    assert drawn >= 100  # inputs and stats of the six books: flags, choices and numbers


def test_a_draw_of_any_width_is_randint_s_and_choice_s() -> None:
    # Widths 1 (a single value: no bits drawn) to 300, both sides of every power of two, where
    # a draw takes more bits and a value too big is drawn again.
    ours, theirs = random.Random(7), random.Random(7)
    members = tuple(f"m{i}" for i in range(40))
    for count in range(1, 301):
        draws: list[tuple[str, tuple[tuple[Value, ...] | None, int, int]]] = [
            ("number", (None, -5, count)),
            ("member", (members[: min(count, 40)], 0, min(count, 40))),
            ("flag", (None, 0, 0)),
        ]
        for _ in range(5):
            found = _draw(draws, ours)
            expected = {
                "number": theirs.randint(-5, -5 + count - 1),
                "member": theirs.choice(members[: min(count, 40)]),
                "flag": theirs.random() < 0.5,
            }
            assert found == expected, count
