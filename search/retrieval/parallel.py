"""How a search's independent lists run: one after another, in the request's thread and connection.

Each list is one statement over the same visible set, so they read one snapshot and nothing has to
carry the request's database choice (``core.db_router.read_alias``) to another thread.

``enabled`` says whether work may leave the request's thread at all (Ask prepares its extractive
fallback in one): not inside a transaction (``connection.in_atomic_block``), whose uncommitted rows
another connection would not see, and not when ``SEARCH_PARALLEL_LEGS`` is off.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.conf import settings

from core.db_router import read_connection


def enabled() -> bool:
    return bool(getattr(settings, "SEARCH_PARALLEL_LEGS", True)) and not read_connection().in_atomic_block


def run_all(calls: list[Callable[[], Any]]) -> list[Any]:
    """Results of ``calls``, in order."""
    return [call() for call in calls]
