"""Per-process LRU caches shared by threads whose key is known only after some work
(``functools.lru_cache`` wants it as the call's arguments): cachetools' ``LRUCache``, which is not
thread-safe, behind a lock."""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

from cachetools import LRUCache

K = TypeVar("K")
V = TypeVar("V")
MISSING = object()  # what ``get`` returns for an absent key (None may be a kept value)


class Lru(Generic[K, V]):
    def __init__(self, size: int) -> None:
        self.size = size
        self._items: LRUCache[K, V] = LRUCache(maxsize=size)
        self._lock = threading.Lock()

    def get(self, key: K, default: object = None) -> V | object:
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
