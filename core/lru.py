"""Per-process LRU caches shared by threads whose key is known only after some work
(``functools.lru_cache`` wants it as the call's arguments): cachetools' ``LRUCache``, which is not
thread-safe, behind a lock."""

from __future__ import annotations

import enum
import threading
from typing import Final, Generic, TypeVar, overload

from cachetools import LRUCache

K = TypeVar("K")
V = TypeVar("V")
D = TypeVar("D")


class _Missing(enum.Enum):
    # An enum member rather than a bare object(): ``x is MISSING`` then narrows ``x``'s type.
    MISSING = enum.auto()


MISSING: Final = _Missing.MISSING  # what ``get`` returns for an absent key (None may be a kept value)


class Lru(Generic[K, V]):
    def __init__(self, size: int) -> None:
        self.size = size
        self._items: LRUCache[K, V] = LRUCache(maxsize=size)
        self._lock = threading.Lock()

    @overload
    def get(self, key: K) -> V | None: ...
    @overload
    def get(self, key: K, default: D) -> V | D: ...
    def get(self, key: K, default: object = None) -> object:
        """The value kept for ``key`` (now the most recent), or ``default``."""
        with self._lock:
            return self._items.get(key, default)

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` for ``key``, dropping the least recent entries past ``size``."""
        with self._lock:
            self._items[key] = value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
