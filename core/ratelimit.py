"""Fixed-window rate limits counted in the shared cache (Redis), so every web worker agrees."""

from __future__ import annotations

import hashlib
import time

from django.core.exceptions import ImproperlyConfigured

from core.cache import default_cache

_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_rate(rate: str) -> tuple[int, int]:
    """'20/m' → (20, 60)."""
    try:
        count, period = rate.split("/")
        return int(count), _PERIODS[period.strip()[-1]] * int(period.strip()[:-1] or 1)
    except (ValueError, KeyError) as exc:
        raise ImproperlyConfigured(f"bad rate {rate!r}: use N/s, N/m, N/h or N/d") from exc


def allow(key: str, rate: str) -> bool:
    """Count one hit for ``key``; False once the limit for the current window is reached."""
    limit, period = parse_rate(rate)
    window = int(time.time() // period)
    cache_key = "rl:" + hashlib.sha256(f"{key}:{window}".encode()).hexdigest()[:32]
    try:
        count = default_cache().count(cache_key, period + 1)
    except Exception:  # the cache is down: fail open rather than lock everyone out
        return True
    return count <= limit
