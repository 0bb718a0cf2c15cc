"""The cache backend shares one Redis client per pool and still behaves as Django's cache."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from django.core.cache import cache


def test_one_client_is_reused_for_every_operation():
    client = cache._cache
    assert client.get_client("a") is client.get_client("b", write=True)


def test_values_written_from_several_threads_are_all_read_back():
    def write(i: int) -> None:
        cache.set(f"shared-client-{i}", i, 30)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(write, range(40)))
    assert cache.get_many([f"shared-client-{i}" for i in range(40)]) == {f"shared-client-{i}": i for i in range(40)}
