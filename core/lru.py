"""A small thread-safe LRU map for per-process caches whose key is known only after some work
(``functools.lru_cache`` wants it as the call's arguments)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")
MISSING = object()  # what ``get`` returns for an absent key (None may be a kept value)


class Lru(Generic[K, V]):
    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, default: object = None) -> V | object:
        """The value kept for ``key`` (now the most recent), or ``default``."""
        with self._lock:
            if key not in self._items:
                return default
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` for ``key``, dropping the least recent entries past ``size``."""
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
