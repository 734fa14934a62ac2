"""Composed rules, expanded where a back end needs every effect of a rule in one list.

`as OTHER` is stored as a reference (a PartEffect naming a Part of `Book.parts`), so a lattice of
traits each composing the ones before costs no more than its text.  `flat_effects` follows the
references: each effect of a composed part comes out once per distinct way of reaching it, under
the guard of every `as` on the way and with `via` naming the rules it came through.  An effect
reached twice under the very same conditions is given once: a resolver counts a part reached
twice only once (the first registration whose condition holds), so the second could never count.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

from dsl import model as m

Keep = Callable[[m.Effect], bool]
Guard = tuple[tuple[int, bool], ...]
"""A guard as a walk tells it apart: which condition nodes, each negated or not."""


def _guard_identity(guard: tuple[m.Condition, ...]) -> Guard:
    return tuple((id(c.expr), c.negated) for c in guard)


def flat_effects(
    book: m.Book,
    effects: tuple[m.Effect, ...],
    only: PartFilter | None = None,
    entered: set[tuple[str, Guard]] | None = None,
) -> Iterator[m.Effect]:
    """The effects with every PartEffect replaced by the part's effects (recursively), in the
    order a resolver registers them.  With `only`, the effects it keeps, and parts that hold
    none of those are not entered at all.  With `entered` (shared by the calls of one walk over
    every rule), a part already entered under the same guard, by this call or an earlier one, is
    not entered again: a walk that needs each effect once under each guard stays linear in a long
    chain of traits, where every rule reaches every part before it."""
    keep = only.keep if only is not None else None
    seen: set[tuple[str, Guard]] = set()
    # an explicit stack of iterators: composition may nest thousands deep
    stack: list[tuple[Iterator[m.Effect], tuple[m.Condition, ...], tuple[str, ...]]] = [(iter(effects), (), ())]
    while stack:
        items, outer, via = stack[-1]
        effect = next(items, None)
        if effect is None:
            stack.pop()
            continue
        guard = (*outer, *effect.guard) if outer else effect.guard
        if isinstance(effect, m.PartEffect):
            part = book.parts.get(effect.part)
            if part is None or (only is not None and not only.holds(part.key)):
                continue
            if entered is not None:
                place = (part.key, _guard_identity(guard))
                if place in entered:
                    continue
                entered.add(place)
            stack.append((iter(part.effects), guard, (*via, effect.rule)))
            continue
        if keep is not None and not keep(effect):
            continue
        identity = (effect.key, _guard_identity(guard))
        if identity in seen:
            continue
        seen.add(identity)
        yield dataclasses.replace(effect, guard=guard, via=via) if outer or via else effect


class PartFilter:
    """The effects `keep` accepts, and whether a part holds one, itself or through the parts it
    composes (worked out once per part: make one filter per book and use it for every rule)."""

    def __init__(self, book: m.Book, keep: Keep) -> None:
        self.book = book
        self.keep = keep
        self.known: dict[str, bool] = {}

    def holds(self, key: str) -> bool:
        # an explicit stack (composition may nest thousands deep): a part is judged after the
        # parts it composes
        stack: list[tuple[str, bool]] = [(key, False)]
        entered: set[str] = set()
        while stack:
            current, children_done = stack.pop()
            if current in self.known:
                continue
            part = self.book.parts.get(current)
            if part is None:
                self.known[current] = False
                continue
            if not children_done:
                if current in entered:  # a circle of `as` (reported as E107) adds nothing
                    continue
                entered.add(current)
                stack.append((current, True))
                stack.extend(
                    (e.part, False) for e in part.effects if isinstance(e, m.PartEffect) and e.part not in self.known
                )
                continue
            self.known[current] = any(
                self.known.get(e.part, False) if isinstance(e, m.PartEffect) else self.keep(e) for e in part.effects
            )
        return self.known[key]


def part_closure(book: m.Book, key: str, memo: dict[str, frozenset[str]]) -> frozenset[str]:
    """Every part a part composes, itself included, however deeply."""
    found = memo.get(key)
    if found is not None:
        return found
    reached = {key}
    stack = [key]
    while stack:
        part = book.parts.get(stack.pop())
        for effect in part.effects if part else ():
            if isinstance(effect, m.PartEffect) and effect.part not in reached:
                known = memo.get(effect.part)
                if known is not None:
                    reached |= known
                else:
                    reached.add(effect.part)
                    stack.append(effect.part)
    memo[key] = frozenset(reached)
    return memo[key]
