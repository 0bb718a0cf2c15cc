"""Which readership scopes changed since a statistic was counted: the scope stamps.

Statistics are counted per readership scope (``search/statistics/scopes.py``). A page that is
restricted, un-restricted, moved to another space, published, unpublished or deleted leaves one
scope for another, and until both are counted again the scope it left still counts its words: a
reader of that scope would be offered a correction, a translation or an IDF shaped by a page they
can no longer read. Database triggers give a scope a new stamp in the same transaction as any such
change (``handbook.models.ScopeStamp``, however it is made: a service, the admin, the API, a
cascade). So each statistic records the stamp of every scope it counted, and whoever reads a
reader's statistics first recounts the readable scopes whose stamp has moved since: the rule holds
at the first search after the change, not after the sweep.

Only the reader's own scopes are checked: a change to scopes they cannot read costs them nothing.
The records live in the cache; a lost record means "count again", never "current".
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache import cache

from search.statistics.scopes import EVERYTHING, Reader, read_stamps, scope_key

logger = logging.getLogger(__name__)

_RECORD_KEY = "statistics:scope-stamps:v1:"


__all__ = ["changed", "current", "forget", "key_sql", "parse_scope_key", "record", "recorded", "scope_key"]


def parse_scope_key(key: str) -> tuple[int, tuple[int, ...]]:
    space, _sep, groups = key.partition(":")
    return int(space), tuple(int(g) for g in groups.split(".") if g)


def key_sql(space_column: str, groups_column: str) -> str:
    """SQL for ``scope_key`` of a row (``groups_column`` sorted, ``{}`` when unrestricted)."""
    return (
        f"(CASE WHEN COALESCE({groups_column}, '{{}}'::int[]) = '{{}}' THEN {space_column}::text"
        f" ELSE {space_column}::text || ':' || array_to_string({groups_column}, '.') END)"
    )


def current(reader: Reader = EVERYTHING) -> dict[str, int]:
    """The stamp of every scope ``reader`` may read, as committed now (one small statement)."""
    return dict(read_stamps(reader).by_scope)


def changed(counted: dict[str, int] | None, now: dict[str, int]) -> list[str]:
    """The scopes of ``now`` whose stamp is not the one they were counted at."""
    counted = counted or {}
    return sorted(key for key, stamp in now.items() if counted.get(key) != stamp)


def recorded(name: str) -> dict[str, int] | None:
    """The stamps statistic ``name`` was last counted at, None when unknown."""
    try:
        return cache.get(_RECORD_KEY + name)
    except Exception:  # a cache outage: count again
        return None


def record(name: str, stamps: dict[str, int], *, merge: bool) -> None:
    """Remember that ``name`` counted these scopes at these stamps (read *before* counting them,
    so a change that lands while counting is counted again next time, never taken as counted)."""
    try:
        known: dict[str, Any] = (recorded(name) or {}) if merge else {}
        cache.set(_RECORD_KEY + name, {**known, **stamps}, None)
    except Exception:
        logger.warning("statistics stamps not recorded (cache unavailable): %s", name)


def forget(name: str) -> None:
    try:
        cache.delete(_RECORD_KEY + name)
    except Exception:
        logger.warning("statistics stamps not forgotten (cache unavailable): %s", name)
