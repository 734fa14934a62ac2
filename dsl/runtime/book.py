"""A generated module's rulebook as the runtime holds it (`Book`): its inputs, rules, their code, tables,
grades, the order its values settle in, and the caches of what resolving has worked out (each
distribution, roll and table cell once); and `Scope`, the values expressions read.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from .base import RuleInputError, show
from .dice import (
    MAX_COMBINATIONS,
    MAX_HORIZON,
    Dice,
    Distribution,
    Value,
    difference,
    distribution,
    from_ways,
    listed_reach,
)
from .inputs import InputSpec
from .results import Modifier, Roll, RulebookInfo, RuleInfo, TraceEntry
from .specs import Amount, Grade, RuleCode, StatOrder, TableSpec, TierSpec, TraceSpec, natural_names

if TYPE_CHECKING:
    from .resolve import Schedule
    from .rolls import _Chances


class Scope:
    """The values expressions read: `v` the inputs (given, default, or worked out from a formula),
    `e` the stats after their modifiers and the derived values, as the situation settles them."""

    __slots__ = ("book", "e", "trace", "v")

    def __init__(self, book: Book, v: dict[str, Any], e: dict[str, Any], trace: list[TraceEntry]) -> None:
        self.book = book
        self.v = v
        self.e = e
        self.trace = trace

    def lookup(self, table: str, keys: tuple[Value, ...], column: str) -> Any:
        """A table cell; typed Any, as the checker has proven its type where it is used."""
        cell, lookup = _cell(self.book, table, keys, column)
        value = cell(self) if callable(cell) else cell
        self.trace.append(TraceEntry(lookup, -1, self.v, self.e))
        return value


def _cell(book: Book, table: str, keys: tuple[Value, ...], column: str) -> tuple[Amount, TraceSpec]:
    """A table cell (a value, or a function of the scope), with the trace of looking it up."""
    spec = book.tables[table]
    row = spec.row_for(keys)
    if row is None:
        raise RuleInputError(f"table `{table}` has no row for {show(keys[0])}")
    index = spec.columns.index(str(keys[1]) if len(spec.inputs) == 2 else column)
    shown = ", ".join(show(k) for k in keys)
    names = tuple((name,) for name in spec.inputs)
    lookup = TraceSpec(
        table, spec.source, f"look up {table}: row {row.key}", (f"{table}[{shown}]",), names, f"row {row.key}"
    )
    return row.cells[index], lookup


@dataclass
class Book:
    info: RulebookInfo
    inputs: Mapping[str, InputSpec]
    rules: Mapping[str, RuleInfo]
    code: Mapping[str, RuleCode]
    """Each rule as its module writes it out (a table has none: it is looked up)."""
    tables: Mapping[str, TableSpec]
    grades: tuple[Grade, ...]
    resistance: Callable[[Fraction | int, Fraction | int], Fraction | int] | None
    resistance_pool: tuple[int, int, str | None] | None
    resistance_op: str | None
    settle: tuple[str, ...] = ()
    """Every value that settles (`stat X`, `base X`, `derive X`), each after what it reads."""
    orders: Mapping[str, StatOrder] = field(default_factory=dict)
    """The stats whose modifiers apply in an order the book states (`order STAT: ...`)."""
    defaults: dict[str, Any] = field(init=False)
    derived_inputs: frozenset[str] = field(init=False)
    """The inputs whose default is worked out from others (`InputSpec.derived`): told None, they
    take it (`resolve_rule`)."""
    order: dict[str, int] = field(init=False)
    pools: dict[tuple[int, int, str | None], Distribution] = field(init=False, default_factory=dict)
    differences: dict[tuple[tuple[int, int, str | None], tuple[int, int, str | None]], Distribution] = field(
        init=False, default_factory=dict
    )
    values: dict[Dice | tuple[Dice, int | None], Distribution] = field(init=False, default_factory=dict)
    """The distributions rolled so far, each computed once (`pool`, `pool_difference`, `dice`)."""
    naturals_found: dict[tuple[Any, ...], dict[tuple[tuple[int, ...], int], Fraction]] = field(
        init=False, default_factory=dict
    )
    """The naturals and totals of the dice values that natural tiers read (`naturals`)."""
    chains: dict[Any, Any] = field(init=False, default_factory=dict)
    """The rows of each roll a chain makes (`chain_draws`), worked out once."""
    schedules: dict[tuple[str, ...], Schedule] = field(init=False, default_factory=dict)
    """How each set of rules resolved together settles (`schedule_of`), found once: an app
    resolves the same rules again and again."""
    told: dict[str, Any] = field(init=False, default_factory=dict)
    """Each rule's inputs as its function tells them (`resolve_rule`), found once."""
    chances: dict[tuple[Any, ...], _Chances] = field(init=False, default_factory=dict)
    """The chances of the rolls worked out so far, by what decides them (`_chances_of`)."""
    cells: dict[tuple[Any, ...], tuple[Amount, TraceSpec]] = field(init=False, default_factory=dict)
    """The table cells looked up so far, each with its trace (`CachedScope.lookup`)."""
    rolled: dict[tuple[Any, ...], Roll] = field(init=False, default_factory=dict)
    """The rolls made so far (by `roll_of`: plans and straight-line functions), by what decides them."""
    held: dict[tuple[Any, ...], tuple[Value, tuple[Modifier, ...]]] = field(init=False, default_factory=dict)
    """The stats they settled so far, by base and the modifiers that held (`settle_held`)."""

    def __post_init__(self) -> None:
        self.inputs = MappingProxyType(dict(self.inputs))
        self.defaults = {name: spec.default for name, spec in self.inputs.items()}
        self.order = {name: index for index, name in enumerate(self.inputs)}
        self.derived_inputs = frozenset(k for k, spec in self.inputs.items() if spec.derived is not None)

    def pool(self, key: tuple[int, int, str | None], horizon: int | None = None) -> Distribution:
        """The distribution of a pool; of exploding dice, worked out at least up to `horizon`."""
        found = self.pools.get(key)
        if found is None or (found.limit is not None and horizon is not None and found.limit < horizon):
            if horizon is not None and horizon > MAX_HORIZON:
                raise RuleInputError(
                    f"the chance of a total above {MAX_HORIZON:,} on exploding dice is not worked out"
                )
            found = self.pools[key] = distribution(*key, horizon=max(horizon or 0, listed_reach(*key)))
        return found

    def dice(self, value: Dice, horizon: int | None = None) -> Distribution:
        """The distribution of a dice value (`skill d10`, a dice stat), worked out once per value;
        of dice that explode without end, up to `horizon` (every higher total gathered above it)."""
        key = value if value.bounded else (value, horizon)
        found = self.values.get(key)
        if found is None:
            if horizon is not None and horizon > MAX_HORIZON:
                raise RuleInputError(f"the chance of a total above {MAX_HORIZON:,} on exploding dice is not worked out")
            try:
                weights, denominator = value.total_weights(limit=MAX_COMBINATIONS, horizon=horizon)
            except ValueError as error:
                raise RuleInputError(str(error)) from None
            low, high = min(weights), max(weights)
            ways = [weights.get(t, 0) for t in range(low, high + 1)]
            common = math.gcd(denominator, *ways)
            found = from_ways(low, denominator // common, [way // common for way in ways])
            if not value.bounded and horizon is not None:
                found = Distribution(found.low, found.denominator, found.at_most[: horizon - low + 1], limit=horizon)
            self.values[key] = found
        return found

    def naturals(
        self, value: Dice, tiers: tuple[TierSpec, ...], horizon: int | None
    ) -> dict[tuple[tuple[int, ...], int], Fraction]:
        """The chance of each (naturals its natural tiers read, total of the dice), worked out once."""
        names = natural_names(tiers)
        key = (value, names, horizon)
        found = self.naturals_found.get(key)
        if found is None:
            try:
                found = value.naturals(names, None if value.bounded else horizon, MAX_COMBINATIONS)
            except ValueError as error:
                raise RuleInputError(str(error)) from None
            if len(self.naturals_found) >= MAX_CACHED:
                self.naturals_found.clear()
            self.naturals_found[key] = found
        return found

    def pool_difference(self, first: tuple[int, int, str | None], second: tuple[int, int, str | None]) -> Distribution:
        found = self.differences.get((first, second))
        if found is None:
            found = self.differences[(first, second)] = difference(self.pool(first), self.pool(second))
        return found


class Settled(dict[str, Any]):
    """The stats and derived values of a situation as they settle; a derived value none of whose
    conditions held is worked out when first read (`pending`)."""

    __slots__ = ("pending",)

    pending: dict[str, Callable[[], Any]]
    """Made when first needed (`wait`): most situations have nothing pending."""

    def wait(self, name: str, compute: Callable[[], Any]) -> None:
        """Work `name` out with `compute` when it is first read."""
        try:
            pending = self.pending
        except AttributeError:
            pending = self.pending = {}
        pending[name] = compute

    def __missing__(self, name: str) -> Any:
        try:
            compute = self.pending.pop(name, None)
        except AttributeError:
            compute = None
        if compute is None:
            raise KeyError(name)
        self[name] = value = compute()
        return value


class CachedScope(Scope):
    """A Scope whose table lookups are kept: a cell, with its trace, is found once per key."""

    __slots__ = ()

    def lookup(self, table: str, keys: tuple[Value, ...], column: str) -> Any:
        cells = self.book.cells
        key = (table, keys, tuple(map(type, keys)), column)  # 1 and True select different rows
        found = cells.get(key)
        if found is None:
            if len(cells) >= MAX_CACHED:
                cells.clear()
            found = cells[key] = _cell(self.book, table, keys, column)
        cell, lookup = found
        value = cell(self) if callable(cell) else cell
        self.trace.append(TraceEntry(lookup, -1, self.v, self.e))
        return value

MAX_CACHED: Final = 4096
"""The most roll chances (or table cells) a book keeps looked up; past it, the store starts over."""
