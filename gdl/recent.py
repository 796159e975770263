"""A map that keeps its most recently used keys: what a process remembers per stage, bounded."""
from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar
from collections.abc import Hashable

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Recent(Generic[K, V]):
    """At most `size` keys; putting one more lets the least recently used go."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()

    def put(self, key: K, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        if len(self._items) > self.size:
            self._items.popitem(last=False)

    def __contains__(self, key: K) -> bool:
        """Whether `key` is kept (a use: it becomes the most recent)."""
        if key in self._items:
            self._items.move_to_end(key)
            return True
        return False

    def pop(self, key: K, default: V | None = None) -> V | None:
        return self._items.pop(key, default)

    def __len__(self) -> int:
        return len(self._items)
