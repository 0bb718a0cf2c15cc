"""A handbook as it would be, that nobody else sees: the draft published and indexed inside a
transaction that is always rolled back, and a cache that keeps what is written during it.

Rows roll back with the transaction; the cache (Redis) does not. Whatever retrieval and Ask would
store while the draft is "published" (sentence vectors of its text, statistics stamps, debounce
marks) stays in this block's own cache and is dropped with it: reads fall through to the live
cache, so the preview answers as the live handbook would, and nothing of an unpublished text
reaches another person's search.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, cast

from django.core.cache import DEFAULT_CACHE_ALIAS, caches
from django.db import DEFAULT_DB_ALIAS, transaction

from core.db_router import reading_from

_ABSENT = object()


class _RolledBack(Exception):
    """Raised to leave the transaction by rolling it back."""


class WritesKept:
    """The live cache for reads; writes kept here (a deleted key reads as absent)."""

    def __init__(self, live: Any) -> None:
        self._live = live
        self._mine: dict[str, Any] = {}

    def get(self, key: str, default: Any = None, version: int | None = None) -> Any:
        if key in self._mine:
            value = self._mine[key]
            return default if value is _ABSENT else value
        return self._live.get(key, default, version=version)

    def get_many(self, keys: list[str], version: int | None = None) -> dict[str, Any]:
        found = dict(self._live.get_many([k for k in keys if k not in self._mine], version=version))
        found.update({k: self._mine[k] for k in keys if k in self._mine and self._mine[k] is not _ABSENT})
        return found

    def has_key(self, key: str, version: int | None = None) -> bool:
        return self.get(key, _ABSENT, version=version) is not _ABSENT

    def set(self, key: str, value: Any, timeout: Any = None, version: int | None = None) -> None:
        self._mine[key] = value

    def set_many(self, data: dict[str, Any], timeout: Any = None, version: int | None = None) -> list[str]:
        self._mine.update(data)
        return []

    def add(self, key: str, value: Any, timeout: Any = None, version: int | None = None) -> bool:
        if self.has_key(key, version=version):
            return False
        self._mine[key] = value
        return True

    def get_or_set(self, key: str, default: Any, timeout: Any = None, version: int | None = None) -> Any:
        value = self.get(key, _ABSENT, version=version)
        if value is _ABSENT:
            value = default() if callable(default) else default
            self._mine[key] = value
        return value

    def delete(self, key: str, version: int | None = None) -> bool:
        self._mine[key] = _ABSENT
        return True

    def delete_many(self, keys: list[str], version: int | None = None) -> None:
        for key in keys:
            self._mine[key] = _ABSENT

    def touch(self, key: str, timeout: Any = None, version: int | None = None) -> bool:
        return self.has_key(key, version=version)

    def incr(self, key: str, delta: int = 1, version: int | None = None) -> int:
        value = self.get(key, _ABSENT, version=version)
        if value is _ABSENT:
            raise ValueError(f"Key '{key}' not found")
        self._mine[key] = value + delta
        return int(value + delta)

    def decr(self, key: str, delta: int = 1, version: int | None = None) -> int:
        return self.incr(key, -delta, version=version)

    def __getattr__(self, name: str) -> Any:
        # Anything else (a raw client, a script, clear()) could write to the live cache: refused,
        # which callers take as a cache outage.
        raise AttributeError(f"the preview's cache has no {name!r}")


@contextlib.contextmanager
def cache_writes_kept() -> Iterator[WritesKept]:
    """This thread's default cache, for the block: live reads, writes kept and then dropped."""
    live = caches[DEFAULT_CACHE_ALIAS]
    kept = WritesKept(live)
    caches[DEFAULT_CACHE_ALIAS] = cast(Any, kept)  # the cache API, as far as the preview's callers use it
    try:
        yield kept
    finally:
        caches[DEFAULT_CACHE_ALIAS] = live


@contextlib.contextmanager
def rolled_back() -> Iterator[None]:
    """A transaction on the primary that is rolled back whatever happens in it, under a cache
    that keeps its writes. Retrieval reads on this thread's connection to the read database
    (``core.db_router.read_connection``), pinned here to the primary, so it sees the uncommitted rows."""
    with reading_from(DEFAULT_DB_ALIAS), cache_writes_kept():
        try:
            with transaction.atomic():
                yield
                raise _RolledBack
        except _RolledBack:
            pass
