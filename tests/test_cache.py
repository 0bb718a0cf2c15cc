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


def test_count_adds_one_in_one_trip_and_keeps_its_first_time_to_live():
    from core.cache import default_cache

    counters = default_cache()
    cache.delete("window-count")
    with ThreadPoolExecutor(4) as pool:  # atomic: no count lost between threads
        counts = list(pool.map(lambda _i: counters.count("window-count", 30), range(40)))
    assert sorted(counts) == list(range(1, 41))
    assert cache.get("window-count") == 40  # read back by Django's cache as the integer it is
    client = cache._cache.get_client(write=True)
    ttl = client.ttl(cache.make_and_validate_key("window-count"))
    assert 0 < ttl <= 30  # set by the first count, not pushed back by the others


def test_keep_newest_keeps_the_largest_number_whatever_the_order():
    from core.cache import default_cache

    marks = default_cache()
    cache.delete("newest")
    assert marks.keep_newest("newest", 5, 30) == 5
    assert marks.keep_newest("newest", 3, 30) == 5  # an older one arriving late changes nothing
    assert marks.keep_newest("newest", 9, 30) == 9
    assert cache.get("newest") == 9
