"""Where the formatter puts a space between two tokens.

Decided from the tokens' text and their place in the parse tree (whether a `+` or `-` has an
operand on its left), never from the name of a grammar rule: a construct added to the grammar
later is spaced by the same rules.  One space is the default; the exceptions read as the
bundled rulebooks were written:

    {a, b}   f(x)   t[k].col   1..6   6+   DEX -2   -x   1/2   1d6+1   climb -10%   when wet: DEX -1

A sign that stands alone before its operand (the `-` of `DEX -2`, the `+` of `then roll again
+1`) sticks to a number but not to a name (`to_hit + cover[zone]`, `roll d20 + modifier`), where
it reads as an addition.  A fraction of two numbers is written tight (`1/2`, `-3/4`), as in
`expect roll fall = 1/2`; any other division is spaced (`MOV / 2`).  A sum of dice and numbers
is written as dice are printed (`1d6+1d8+4`, `2d6-2`); any other sum is spaced (`DEX + 2`).
"""

from __future__ import annotations

from dataclasses import dataclass

from lark import Token, Tree

_NO_SPACE_BEFORE = frozenset({",", ":", "%", ")", "]", "}", ".", ".."})
_NO_SPACE_AFTER = frozenset({"(", "[", "{", "."})
_SIGNS = frozenset({"+", "-"})
_DICE_TERMS = frozenset({"DICE", "DIE", "NUMBER"})


@dataclass(frozen=True)
class Leaf:
    """A token with the parse-tree node it belongs to and its place among that node's children."""

    token: Token
    parent: Tree[Token] | None
    index: int

    @staticmethod
    def text_leaf(value: str) -> Leaf:
        """A string that stands for a free text written anew (its parts joined)."""
        return Leaf(Token("STRING", value), None, 0)

    def siblings(self) -> tuple[bool, bool]:
        """Whether the node holds something before this token, and after it."""
        if self.parent is None:
            return (False, False)
        return (self.index > 0, self.index < len(self.parent.children) - 1)


class Spacing:
    """The spacing rules, with what they learn about the parse tree of one text."""

    def __init__(self) -> None:
        self._dice_sums: dict[int, tuple[bool, bool]] = {}
        self._apart: set[int] = set()  # signs of a bonus after a bracket: spaced on both sides

    def spaced(self, before: Leaf, after: Leaf, following: Leaf | None = None) -> bool:
        """Whether one space separates two tokens that follow each other on a line (`following`:
        the token after them, if any)."""
        if before.token.value in _SIGNS and before.siblings() == (True, True):
            return not self._dice_sum(before)
        if after.token.value in _SIGNS and after.siblings() == (True, True):
            return not self._dice_sum(after)
        if (
            after.token.value in _SIGNS
            and not after.siblings()[0]
            and before.token.type in ("DICE", "DIE")
            and following is not None
            and following.token.type == "NUMBER"
        ):
            return False  # a roll's bonus after its dice reads as the dice print: `2d6+4 >= 9`
        if after.token.value in _SIGNS and not any(after.siblings()) and before.token.value == ")":
            self._apart.add(id(after.token))
            return True  # a bonus after a bracket: `max(d8, d6) + 2`
        if id(before.token) in self._apart:
            return True
        return _spaced(before, after)

    def _dice_sum(self, sign: Leaf) -> bool:
        """Whether a `+` or `-` adds dice and numbers only, at least one of them dice: `1d6+1`."""
        assert sign.parent is not None
        return self._terms(sign.parent) == (True, True)

    def _terms(self, root: Tree[Token]) -> tuple[bool, bool]:
        """(only dice, numbers and signs in it; dice among them), for a node, without recursing:
        a chain of a thousand `+` nests a thousand deep."""
        pending: list[tuple[Tree[Token], bool]] = [(root, False)]
        while pending:
            node, ready = pending.pop()
            if id(node) in self._dice_sums:
                continue
            subtrees = [c for c in node.children if isinstance(c, Tree)]
            if not ready:
                pending.append((node, True))
                pending.extend((c, False) for c in subtrees if id(c) not in self._dice_sums)
                continue
            only, dice = True, False
            for child in node.children:
                if isinstance(child, Tree):
                    child_only, child_dice = self._dice_sums[id(child)]
                    only, dice = only and child_only, dice or child_dice
                else:
                    only = only and (child.type in _DICE_TERMS or child.value in _SIGNS)
                    dice = dice or child.type in ("DICE", "DIE")
            self._dice_sums[id(node)] = (only, dice)
        return self._dice_sums[id(root)]


def _spaced(before: Leaf, after: Leaf) -> bool:
    left, right = before.token, after.token
    if right.value in _NO_SPACE_BEFORE or left.value in _NO_SPACE_AFTER:
        return False
    if left.value == "..":
        return not (right.type == "NUMBER" or right.value in _SIGNS)
    if right.value in ("(", "[") and left.type == "NAME":
        return False  # a call or a lookup: max(a, b), table[key]
    if left.value in _SIGNS:
        has_left, has_right = before.siblings()
        if not has_left and has_right:
            return False  # a prefix: -x, -(a + b), -2 in 1..-2
        if not has_left:
            return right.type != "NUMBER"  # a sign on its own: DEX -2, to_hit + cover
    if right.value in _SIGNS:
        has_left, has_right = after.siblings()
        if has_left and not has_right:
            return False  # a suffix: 6+
    if "/" in (left.value, right.value):
        slash = before if left.value == "/" else after
        return not _fraction(slash)
    return True


def _fraction(slash: Leaf) -> bool:
    """Whether a `/` divides a number by a number: `1/2`, `-3/4`."""
    node = slash.parent
    if node is None or len(node.children) != 3 or slash.index != 1:
        return False
    return _number(node.children[0]) and _number(node.children[2])


def _number(child: Token | Tree[Token]) -> bool:
    """A number literal, signed or not (at most a few tokens: no need to walk deep trees)."""
    tokens: list[Token] = []
    pending: list[Token | Tree[Token]] = [child]
    while pending:
        item = pending.pop()
        if isinstance(item, Tree):
            pending.extend(reversed(item.children))
        else:
            tokens.append(item)
        if len(tokens) > 3:
            return False
    *signs, last = tokens or [Token("NONE", "")]
    return last.type == "NUMBER" and all(sign.value in _SIGNS for sign in signs)
