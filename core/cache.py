"""Django's Redis cache, with one Redis client per connection pool instead of one per call.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` for every cache
operation (its response-callback tables rebuilt each time), and a keystroke makes several: a
share of its CPU worth keeping (bench/plain_django.py measures it). A ``redis.Redis`` over a
connection pool is safe to share between threads.
"""

from __future__ import annotations

from typing import Any, cast

from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class SharedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # Private parts of Django's RedisCacheClient, absent from its stubs.
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients.setdefault(id(pool), self._client(connection_pool=pool))  # type: ignore[attr-defined]
        return client


# Counters and marks used on every request (rate limits, search-as-you-type's latest keystroke), each
# in one round trip: through Django's cache API a counter takes add, then exists and incrby.
# Scripts run atomically in Redis. Values stay what Django's cache reads back: bare integers.
_COUNT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
"""
_KEEP_NEWEST = """
local seen = tonumber(redis.call('GET', KEYS[1]))
if seen and seen > tonumber(ARGV[1]) then return seen end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return tonumber(ARGV[1])
"""


class SharedClientRedisCache(RedisCache):
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedClientRedisCacheClient
        self._scripts: dict[tuple[int, str], Any] = {}

    def _run(self, source: str, key: str, *args: int) -> int:
        redis_key = self.make_and_validate_key(key)
        client = self._cache.get_client(redis_key, write=True)
        script = self._scripts.get((id(client), source))
        if script is None:  # EVALSHA from then on, the script sent again only if Redis lost it
            script = self._scripts.setdefault((id(client), source), client.register_script(source))
        return int(script(keys=[redis_key], args=list(args)))

    def count(self, key: str, timeout: int) -> int:
        """Add one to the counter ``key`` (made with ``timeout`` seconds to live); its new value."""
        return self._run(_COUNT, key, timeout)

    def keep_newest(self, key: str, value: int, timeout: int) -> int:
        """Store ``value`` at ``key`` (``timeout`` seconds) unless a larger one is there; the larger."""
        return self._run(_KEEP_NEWEST, key, value, timeout)


def default_cache() -> SharedClientRedisCache:
    """The default cache (``CACHES`` in config/settings.py), with its one-trip operations."""
    return cast(SharedClientRedisCache, caches["default"])
