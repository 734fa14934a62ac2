"""What card making remembers: bounded caches by content (`keep`), and facts about the model's
nodes by their identity (`Identity`), the one place where an id() keys anything on the cards
floor."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


def keep(cache: dict[K, V], key: K, value: V, most: int) -> V:
    """`cache[key] = value`, returned; the cache emptied first when it holds `most` entries, so
    what is remembered stays bounded in a long-running process (`rulecraft watch`, the editor)."""
    if len(cache) >= most:
        cache.clear()
    cache[key] = value
    return value


class Identity(Generic[K, V]):
    """What is worked out for an object, remembered by the object's identity: for facts about
    nodes of the checked model, whose equality is structural (two rolls written alike in two
    rules are equal, yet a name in each may stand for another rule's derived value).  It holds
    its keys, so an id in it is never another object's while it lasts: made for one deck, it
    goes with it."""

    __slots__ = ("found",)

    def __init__(self) -> None:
        self.found: dict[int, tuple[K, V]] = {}

    def remembered(self, key: K, make: Callable[[], V]) -> V:
        """What `make()` gives for `key`, made the first time it is asked for."""
        known = self.found.get(id(key))
        if known is None:
            known = self.found[id(key)] = (key, make())
        return known[1]
