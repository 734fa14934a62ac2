"""Table checks on rows that overlap, leave gaps or share a name: a diagnostic, never a crash, and
work that grows with the number of rows (each row is compared with the furthest-reaching row
before it, not with every earlier row)."""

from __future__ import annotations

import pytest

from dsl.compiler import Compiled, compile_text

HEAD = 'rulebook t "T":\n    source "s"\n\ninput crew: int 1..20 = 1\ninput a: one of {p, q} = p\n\n'


def _found(compiled: Compiled) -> list[tuple[int, str, str]]:
    return [(d.span.line, d.code, d.message) for d in compiled.errors]


def test_a_row_and_an_open_row_from_the_same_value_are_an_overlap() -> None:
    # the reproducer table_overlap_open_row_crash.rules: a TypeError in the gap check
    compiled = compile_text(HEAD + 'table t "T" cites "1" by crew:\n    4: 2\n    4+: 3\n', "gaps.rules")
    assert _found(compiled) == [
        (8, "E401", "table `t` has no row for 1..3 (`crew` is int 1..20)"),
        (9, "E402", "rows 4 and 4+ both cover 4"),
    ]


@pytest.mark.parametrize(
    ("rows", "overlap"),
    [
        (["1..3: 1", "4+: 2", "4: 3"], "rows 4+ and 4 both cover 4"),
        (["1..3: 1", "4..6: 2", "4+: 3"], "rows 4..6 and 4+ both cover 4..6"),
        (["1..3: 1", "4+: 2", "4+: 3"], "rows 4+ and 4+ both cover 4+"),
        (["1+: 1", "1..20: 2"], "rows 1+ and 1..20 both cover 1..20"),
    ],
)
def test_open_rows_among_equal_starts_never_crash(rows: list[str], overlap: str) -> None:
    body = "".join(f"    {row}\n" for row in rows)
    compiled = compile_text(HEAD + f'table t "T" cites "1" by crew:\n{body}', "open.rules")
    assert [m for _, code, m in _found(compiled) if code == "E402"] == [overlap]
    assert {code for _, code, _ in _found(compiled)} <= {"E401", "E402"}


def test_a_row_overlapping_an_earlier_row_that_is_not_its_neighbour_is_found() -> None:
    body = "    1..10: 1\n    3..4: 2\n    5..6: 3\n    11..20: 4\n"
    compiled = compile_text(HEAD + f'table t "T" cites "1" by crew:\n{body}', "wide.rules")
    assert _found(compiled) == [
        (9, "E402", "rows 1..10 and 3..4 both cover 3..4"),
        (10, "E402", "rows 1..10 and 5..6 both cover 5..6"),
    ]


def test_many_overlapping_rows_give_one_error_each_not_one_per_pair() -> None:
    # the reproducer table_rows_quadratic.py compared every row with every earlier one
    rows = 3000
    head = HEAD.replace("int 1..20", f"int 0..{rows}")
    body = "".join(f"    0+: {i}\n" for i in range(rows))
    compiled = compile_text(head + f'table t "T" cites "1" by crew:\n{body}', "many.rules")
    assert [code for _, code, _ in _found(compiled)] == ["E402"] * (rows - 1)


def test_many_gaps_are_each_reported_with_their_neighbours() -> None:
    rows = 2000
    head = HEAD.replace("int 1..20", f"int 0..{2 * rows - 1}")
    body = "".join(f"    {2 * i}: {i}\n" for i in range(rows))
    compiled = compile_text(head + f'table t "T" cites "1" by crew:\n{body}', "gaps.rules")
    found = compiled.errors
    assert [d.code for d in found] == ["E401"] * rows
    assert found[0].message == f"table `t` has no row for 1 (`crew` is int 0..{2 * rows - 1})"
    assert found[0].hint == "add a row for 1, or widen the row before or after it"
    assert found[-1].hint == f"add a row for {2 * rows - 1}, or an `else` row"


def test_a_second_two_way_table_of_the_same_name_is_a_duplicate() -> None:
    # the reproducer duplicate_table_two_way_crash.rules: an IndexError reading the second table
    # with the first one's shape
    text = (
        HEAD + 'table t "T" cites "1" roll 2d6:\n    2..12: 1\n\n'
        'table t "T" cites "1" by a, a:\n    columns p, q\n    p: 1, 2\n    q: 3, 4\n'
    )
    compiled = compile_text(text, "dup.rules")
    assert _found(compiled) == [(10, "E102", "`t` is already declared (line 7)")]
