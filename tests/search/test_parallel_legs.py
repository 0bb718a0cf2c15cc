"""Retrieval lists run side by side on their own connections: same results, same permissions."""

from __future__ import annotations

import threading

import pytest

from search.retrieval import parallel
from search.retrieval import pipeline as retrieval
from search.retrieval.hits import Filters
from search.retrieval.pipeline import retrieve
from tests.readers import crosslang_leg
from tests.search.retrieval_world import SECRET, build, refs

pytestmark = pytest.mark.django_db(transaction=True)  # pool connections only see committed rows


@pytest.fixture
def world(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    built = build(make_space, make_page, make_user)
    yield built
    parallel.close_connections()  # before the tables are flushed for the next test


def _pool_threads() -> set[str]:
    return {t.name for t in threading.enumerate() if t.name.startswith("search-leg")}


QUERIES = ["canary remote work parking badges", "congés payés", "Is telecommuting allowed?", "travail à distance"]


def test_parallel_and_sequential_searches_return_the_same_pages(world, settings):  # type: ignore[no-untyped-def]
    assert parallel.enabled()  # no transaction open: the pool is used
    results = {}
    for flag in (True, False):
        settings.SEARCH_PARALLEL_LEGS = flag
        results[flag] = {
            (query, user): [(p.page_id, round(p.score, 9)) for p in retrieve(query, world[user]).pages]
            for query in QUERIES
            for user in ("bob", "alice")
        }
    assert results[True] == results[False]
    assert _pool_threads()  # the lists really ran in pool threads
    assert all(results[True][(q, "bob")] for q in QUERIES)


def test_parallel_lists_filter_by_permission(world, monkeypatch):  # type: ignore[no-untyped-def]
    from django.core.cache import cache

    from search.retrieval import crosslang

    monkeypatch.setattr(crosslang, "MIN_CHUNKS_PER_LANGUAGE", 1)  # the language-centred list takes part
    cache.clear()
    query = "canary remote work parking badges"
    bob = retrieve(query, world["bob"])
    assert any(h.crosslang_rank for p in bob.pages for h in p.chunks)
    assert bob.timings.keys() >= {"keyword", "vector", "crosslang", "translate"}
    assert bob.pages and not set(refs(world, [p.page_id for p in bob.pages])) & SECRET
    alice = refs(world, [p.page_id for p in retrieve(query, world["alice"]).pages])
    assert set(alice) >= SECRET  # positive control


def test_a_failing_list_fails_the_search_and_the_pool_recovers(world, monkeypatch):  # type: ignore[no-untyped-def]
    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("vector index unavailable")

    monkeypatch.setattr(retrieval, "vector_leg", broken)
    with pytest.raises(RuntimeError, match="vector index unavailable"):
        retrieve("remote work", world["bob"])
    monkeypatch.undo()
    assert retrieve("remote work", world["bob"]).pages


def test_inside_a_transaction_the_lists_run_in_the_callers_thread(world):  # type: ignore[no-untyped-def]
    from django.db import transaction

    with transaction.atomic():
        assert not parallel.enabled()
        calls: list[str] = []
        results = parallel.run_all(
            [lambda: calls.append(threading.current_thread().name), lambda: threading.current_thread().name]
        )
    assert results[1] == threading.current_thread().name and calls == [threading.current_thread().name]


def test_language_partitions_walk_side_by_side_and_merge_into_one_list(world, monkeypatch, settings):  # type: ignore[no-untyped-def]
    """Through the graphs (not exact), each language partition is its own pool task; merged, they are
    exactly the list ``crosslang_leg`` computes in one call (no floor: every neighbour counts)."""
    from django.core.cache import cache

    from tests.decisions import every_neighbour

    every_neighbour()

    from core.text import detect_language
    from search.embedding.model_switch import query_embedder
    from search.retrieval import crosslang
    from tests.readers import visible_page_ids

    monkeypatch.setattr(crosslang, "MIN_CHUNKS_PER_LANGUAGE", 1)
    monkeypatch.setattr(crosslang, "PARTITION_EXACT_CHUNKS", 0)
    monkeypatch.setattr(retrieval, "use_exact_scan", lambda visible: False)
    cache.clear()
    query = "travail à distance"
    embedder = query_embedder()
    vector = embedder.embed_query(query)
    expected = crosslang_leg(
        vector, embedder.model_name, detect_language(query), visible_page_ids(world["bob"]), Filters(), 100
    )
    assert expected

    def crosslang_ranks(result):  # type: ignore[no-untyped-def]
        return sorted((h.crosslang_rank, h.chunk_id) for p in result.pages for h in p.chunks if h.crosslang_rank)

    side_by_side = retrieve(query, world["bob"])
    assert crosslang_ranks(side_by_side) == [(h.crosslang_rank, h.chunk_id) for h in expected]
    assert "crosslang" in side_by_side.timings and not [k for k in side_by_side.timings if ":" in k]
    settings.SEARCH_PARALLEL_LEGS = False
    one_by_one = retrieve(query, world["bob"])
    assert [(p.page_id, p.score) for p in one_by_one.pages] == [(p.page_id, p.score) for p in side_by_side.pages]
