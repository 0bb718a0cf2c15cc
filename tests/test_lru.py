"""The per-process LRU map (core/lru.py)."""

from __future__ import annotations

import threading

from core.lru import MISSING, Lru


def test_the_least_recently_used_entry_goes_first_and_a_read_counts_as_use() -> None:
    cache: Lru[int, str | None] = Lru(2)
    cache.put(1, "one")
    cache.put(2, None)  # None is a value like any other
    assert cache.get(1) == "one"  # 1 is now the most recent
    cache.put(3, "three")
    assert cache.get(2, MISSING) is MISSING and cache.get(1) == "one" and cache.get(3) == "three"
    cache.clear()
    assert cache.get(1, MISSING) is MISSING


def test_threads_share_it_without_losing_its_bound() -> None:
    cache: Lru[int, int] = Lru(50)

    def fill(start: int) -> None:
        for i in range(start, start + 500):
            cache.put(i, i)
            cache.get(i - 1)

    threads = [threading.Thread(target=fill, args=(n * 1000,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    kept = [i for n in range(4) for i in range(n * 1000, n * 1000 + 500) if cache.get(i, MISSING) is not MISSING]
    assert 0 < len(kept) <= 50
