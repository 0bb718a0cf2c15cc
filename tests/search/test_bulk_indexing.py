"""Bulk indexing at the embedder's speed: groups of pages share full batches, and an
OpenAI-compatible endpoint gets several requests at once (search/indexing/pipeline.py,
search/embedding/embedders.py)."""

from __future__ import annotations

import time

import pytest

from search.embedding.embedders import EmbeddingError, get_embedder, passages_in_slices
from search.indexing.pipeline import pages_reindex
from search.models import Chunk, IndexState, UnitVector

pytestmark = pytest.mark.django_db


def _body(n: int) -> str:
    return (
        f"# Rule {n}\n\nStaff rule number {n} applies to travel.\n\n## Details {n}\n\nAsk the office about rule {n}.\n"
    )


@pytest.fixture
def endpoint(fake_llm, settings):  # type: ignore[no-untyped-def]
    """The embedder is the fake OpenAI-compatible server, slow enough for requests to overlap."""
    settings.EMBEDDINGS_BASE_URL = fake_llm.base_url
    settings.EMBEDDINGS_MODEL = "fake-embed"
    settings.EMBEDDINGS_DIMENSIONS = 384
    settings.EMBEDDINGS_BATCH_SIZE = 2
    settings.EMBEDDINGS_CONCURRENCY = 3
    fake_llm.embedding_delay = 0.2
    return fake_llm


def test_an_endpoint_gets_full_batches_several_at_once_and_vectors_keep_their_order(endpoint):  # type: ignore[no-untyped-def]
    texts = [f"text number {n}" for n in range(11)]
    vectors = get_embedder().embed_passages(texts)  # type: ignore[union-attr]
    assert sorted(endpoint.embedding_batches) == [1, 2, 2, 2, 2, 2]  # arrival order varies
    assert endpoint.embedding_in_flight_max == 3  # EMBEDDINGS_CONCURRENCY, not more
    endpoint.embedding_delay = 0.0
    alone = [get_embedder().embed_passages([text])[0] for text in texts]  # type: ignore[union-attr]
    assert vectors == alone  # each text's vector in its place, whatever order the requests ended in


def test_one_request_at_a_time_when_concurrency_is_one(endpoint, settings):  # type: ignore[no-untyped-def]
    settings.EMBEDDINGS_CONCURRENCY = 1
    get_embedder().embed_passages([f"text {n}" for n in range(5)])  # type: ignore[union-attr]
    assert endpoint.embedding_batches == [2, 2, 1]
    assert endpoint.embedding_in_flight_max == 1


def test_a_remote_embedder_gets_the_next_slice_while_the_caller_writes_this_one(endpoint, settings):  # type: ignore[no-untyped-def]
    """GIVEN three slices for an endpoint WHEN the caller holds the first slice's vectors (writing them)
    THEN the second slice is already requested; each slice gets its own vectors, in order."""
    settings.EMBEDDINGS_CONCURRENCY = 1
    embedder = get_embedder()
    assert embedder is not None and embedder.remote
    slices = [[f"slice {n} text {i}" for i in range(2)] for n in range(3)]
    vectors = passages_in_slices(embedder, slices)
    first = next(vectors)
    deadline = time.monotonic() + 5
    while endpoint.embedding_calls < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert endpoint.embedding_calls == 2  # the next slice went while this one was being written
    rest = list(vectors)
    assert endpoint.embedding_calls == 3
    endpoint.embedding_delay = 0.0
    assert [first, *rest] == [embedder.embed_passages(texts) for texts in slices]


class _CountingEmbedder:
    model_name, dimensions, parallel_requests = "counting", 3, 1

    def __init__(self, remote: bool, fail_on: int = 0) -> None:
        self.remote, self.fail_on, self.calls = remote, fail_on, 0

    def embed_passages(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        if self.calls == self.fail_on:
            raise EmbeddingError("the embeddings provider is down")
        return [[float(len(t)), 0.0, 1.0] for t in texts]


def test_a_local_model_computes_one_slice_at_a_time():  # type: ignore[no-untyped-def]
    embedder = _CountingEmbedder(remote=False)
    vectors = passages_in_slices(embedder, [["a"], ["bb"], ["ccc"]])  # type: ignore[arg-type]
    assert next(vectors) == [[1.0, 0.0, 1.0]]
    assert embedder.calls == 1  # nothing computed ahead: the model already uses every core
    assert list(vectors) == [[[2.0, 0.0, 1.0]], [[3.0, 0.0, 1.0]]]


def test_a_failed_slice_is_raised_in_its_turn_and_no_later_slice_is_requested():  # type: ignore[no-untyped-def]
    embedder = _CountingEmbedder(remote=True, fail_on=2)
    vectors = passages_in_slices(embedder, [["a"], ["bb"], ["ccc"], ["dddd"]])  # type: ignore[arg-type]
    assert next(vectors) == [[1.0, 0.0, 1.0]]
    with pytest.raises(EmbeddingError):
        next(vectors)
    assert embedder.calls == 2


def test_a_group_of_pages_is_keyword_searchable_before_any_vector_and_shares_batches(  # type: ignore[no-untyped-def]
    make_space, make_page, settings
):
    """GIVEN three pages of two chunks each, reindexed as one group
    THEN every page's chunks and tsvectors exist before the first vector is computed, and the
    embedder gets the six chunks in full batches that span pages."""
    settings.EMBEDDINGS_BATCH_SIZE = 4
    space = make_space("rules")
    pages = [make_page(space, f"Rule {n}", _body(n), index=False) for n in range(3)]
    embedder = get_embedder()
    assert embedder is not None
    calls: list[int] = []
    searchable_at_first_call: list[int] = []
    inner = embedder.embed_passages

    def watched(texts: list[str]) -> list[list[float]]:
        if not calls:
            searchable_at_first_call.extend(
                Chunk.objects.filter(page__in=pages, search_vector__isnull=False).values_list("page_id", flat=True)
            )
        calls.append(len(texts))
        return inner(texts)

    embedder.embed_passages = watched  # type: ignore[method-assign]
    try:
        results = pages_reindex([p.pk for p in pages])
    finally:
        del embedder.embed_passages
    assert sorted(searchable_at_first_call) == sorted(p.pk for p in pages for _chunk in range(2))
    assert calls == [4, 2]
    assert {r.status for r in results.values()} == {"indexed"}
    assert [results[p.pk].embedded for p in pages] == [2, 2, 2]
    assert not Chunk.objects.filter(page__in=pages, embedding__isnull=True).exists()
    assert set(IndexState.objects.filter(page__in=pages).values_list("status", flat=True)) == {"indexed"}


def test_a_group_reports_pages_gone_or_unpublished_and_indexes_the_rest(make_space, make_page):  # type: ignore[no-untyped-def]
    from handbook.services import page_delete

    space = make_space("rules")
    kept = make_page(space, "Kept", _body(1), index=False)
    gone = make_page(space, "Gone", _body(2))
    page_delete(page=gone)
    results = pages_reindex([kept.pk, gone.pk, 999_999, kept.pk])
    assert results[kept.pk].status == "indexed"
    assert results[gone.pk].status == "removed"
    assert results[999_999].status == "missing"
    assert not Chunk.objects.filter(page=gone).exists()


def test_an_endpoint_failure_marks_the_group_failed_and_keeps_keyword_search(make_space, make_page, settings):  # type: ignore[no-untyped-def]
    from search.embedding.embedders import EmbeddingError

    space = make_space("rules")
    pages = [make_page(space, f"Rule {n}", _body(n), index=False) for n in range(2)]
    settings.EMBEDDINGS_BASE_URL = "http://127.0.0.1:9/v1"  # nothing listens there
    settings.EMBEDDINGS_MODEL, settings.EMBEDDINGS_TIMEOUT_S = "fake-embed", 0.5
    with pytest.raises(EmbeddingError):
        pages_reindex([p.pk for p in pages])
    assert set(IndexState.objects.filter(page__in=pages).values_list("status", flat=True)) == {"failed"}
    assert Chunk.objects.filter(page__in=pages, search_vector__isnull=False).count() == 4


def test_the_bulk_task_indexes_a_group_and_stores_its_answer_units(make_space, make_page):  # type: ignore[no-untyped-def]
    from search.tasks import reindex_pages

    space = make_space("rules")
    pages = [make_page(space, f"Rule {n}", _body(n), index=False) for n in range(3)]
    counts = reindex_pages.apply(([p.pk for p in pages],)).get()
    assert counts == {"indexed": 3}
    for page in pages:
        assert UnitVector.objects.filter(chunk__page=page).exists()
    assert IndexState.objects.filter(page__in=pages, units_model="").count() == 0
