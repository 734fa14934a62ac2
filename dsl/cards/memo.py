"""What card making remembers between calls, kept bounded."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, TypeVar

K = TypeVar("K")
V = TypeVar("V")


def keep(cache: dict[K, V], key: K, value: V, most: int) -> V:
    """`cache[key] = value`, returned; the cache emptied first when it holds `most` entries, so
    what is remembered stays bounded in a long-running process (`rulecraft watch`, the editor)."""
    if len(cache) >= most:
        cache.clear()
    cache[key] = value
    return value


def kept_for(tables: weakref.WeakKeyDictionary[Any, dict[K, V]], owner: Any) -> dict[K, V]:
    """What is remembered for `owner` (a document: gone with it), an empty dict when first asked."""
    found = tables.get(owner)
    if found is None:
        found = tables[owner] = {}
    return found


def by_ids(cache: dict[K, tuple[object, V]], key: K, held: object, make: Callable[[], V], most: int = 4096) -> V:
    """`make()`, remembered in `cache` under `key`, a key made of objects' ids (a compiled book, a
    roll): `held`, the objects the ids are of, is stored with the value, so none of those ids can
    be given to a new object while the entry lasts."""
    found = cache.get(key)
    if found is None:
        found = keep(cache, key, (held, make()), most)
    return found[1]
