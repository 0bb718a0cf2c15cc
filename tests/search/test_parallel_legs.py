"""A search's lists, committed rows and no open transaction (as a web request runs them): results
and permissions."""

from __future__ import annotations

import pytest

from search.retrieval import pipeline as retrieval
from search.retrieval.hits import Filters
from search.retrieval.pipeline import retrieve
from tests.readers import crosslang_leg
from tests.search.retrieval_world import SECRET, build, refs

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def world(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    return build(make_space, make_page, make_user)


def test_every_list_filters_by_permission(world, monkeypatch):  # type: ignore[no-untyped-def]
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


def test_a_failing_list_fails_the_search_and_the_next_search_answers(world, monkeypatch):  # type: ignore[no-untyped-def]
    def broken(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("vector index unavailable")

    monkeypatch.setattr(retrieval, "vector_leg", broken)
    with pytest.raises(RuntimeError, match="vector index unavailable"):
        retrieve("remote work", world["bob"])
    monkeypatch.undo()
    assert retrieve("remote work", world["bob"]).pages


def test_language_partitions_walked_one_by_one_merge_into_one_list(world, monkeypatch):  # type: ignore[no-untyped-def]
    """Through the graphs (not exact), each language partition is its own list; merged, they are
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

    result = retrieve(query, world["bob"])
    assert crosslang_ranks(result) == [(h.crosslang_rank, h.chunk_id) for h in expected]
    assert "crosslang" in result.timings and not [k for k in result.timings if ":" in k]
