"""Health of the pieces /healthz reports: database, Redis, a live worker."""

from __future__ import annotations

import time

from django.core.cache import cache
from django.db import connection

HEARTBEAT_KEY = "worker:heartbeat"
HEARTBEAT_MAX_AGE_S = 120


def heartbeat_write() -> None:
    cache.set(HEARTBEAT_KEY, time.time(), timeout=HEARTBEAT_MAX_AGE_S * 5)


def check_database() -> tuple[bool, str]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return True, "ok"
    except Exception as exc:
        return False, exc.__class__.__name__


def check_redis() -> tuple[bool, str]:
    try:
        cache.set("healthz", "1", timeout=10)
        return cache.get("healthz") == "1", "ok"
    except Exception as exc:
        return False, exc.__class__.__name__


def check_worker() -> tuple[bool, str]:
    try:
        beat = cache.get(HEARTBEAT_KEY)
    except Exception as exc:
        return False, exc.__class__.__name__
    if beat is None:
        return False, "no heartbeat"
    age = time.time() - float(beat)
    return age < HEARTBEAT_MAX_AGE_S, f"last heartbeat {age:.0f}s ago"
