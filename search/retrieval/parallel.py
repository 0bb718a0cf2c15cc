"""Whether work may leave the request's thread (Ask prepares its extractive fallback in one).

A search's own lists run one after another in the request's thread and connection: one snapshot,
and nothing has to carry the request's database choice (``core.db_router.read_alias``) elsewhere.
Work handed to another thread runs on another connection, so not inside a transaction
(``connection.in_atomic_block``), whose uncommitted rows it would not see, and not when
``SEARCH_PARALLEL_LEGS`` is off.
"""

from __future__ import annotations

from django.conf import settings

from core.db_router import read_connection


def enabled() -> bool:
    return bool(getattr(settings, "SEARCH_PARALLEL_LEGS", True)) and not read_connection().in_atomic_block
