"""What card making remembers between calls, kept bounded."""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


def keep(cache: dict[K, V], key: K, value: V, most: int) -> V:
    """`cache[key] = value`, returned; the cache emptied first when it holds `most` entries, so
    what is remembered stays bounded in a long-running process (`rulecraft watch`, the editor)."""
    if len(cache) >= most:
        cache.clear()
    cache[key] = value
    return value
