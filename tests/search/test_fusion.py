"""Fusion and candidate choice: reciprocal rank fusion, the keyword candidate cap."""

from __future__ import annotations

import pytest

from search.retrieval.fusion import fuse
from search.retrieval.hits import ChunkHit, Filters
from search.retrieval.keyword import keyword_leg
from search.retrieval.query import parse_query
from tests.readers import visible_page_ids
from tests.search.retrieval_world import kw_leg

pytestmark = pytest.mark.django_db


# --- fusion (unit) ------------------------------------------------------------------


def test_candidates_are_the_rarest_words_that_fit_the_cap(monkeypatch):  # type: ignore[no-untyped-def]
    from search.retrieval import keyword as retrieval
    from search.statistics.term_statistics import TermWeight

    terms = [
        TermWeight("common", 1.0, 50),
        TermWeight("rare", 3.0, 3),
        TermWeight("mid", 2.0, 5),
        TermWeight("b", 2.5, 4),
    ]
    assert [t.term for t in retrieval._candidate_terms(terms, 10)] == ["rare", "b"]  # 3 + 4 fit, + 5 does not
    assert [t.term for t in retrieval._candidate_terms(terms, 12)] == ["rare", "b", "mid"]
    # Every word more common than the cap: the rarest one still brings candidates.
    two = [TermWeight("x", 1.0, 50), TermWeight("y", 1.0, 20)]
    assert [t.term for t in retrieval._candidate_terms(two, 10)] == ["y"]
    assert retrieval._candidate_terms([], 10) == []


def test_a_tight_cap_keeps_the_chunks_of_the_rarest_word(kw, monkeypatch):  # type: ignore[no-untyped-def]
    from search.retrieval import keyword as retrieval

    # "parking" is on four pages bob sees two of; "garage" only on the parking page.
    wide = {h.page_id for h in kw_leg(kw, "parking garage")}
    assert wide >= {kw["ids"]["parking"], kw["ids"]["access"]}
    monkeypatch.setattr(retrieval, "KEYWORD_CANDIDATE_CAP", 1)
    tight = kw_leg(kw, "parking garage")
    assert [h.page_id for h in tight] == [kw["ids"]["parking"]]  # the rare word's chunk, not a sample
    # A pass's own cap (the translated query's) wins over the default.
    visible = visible_page_ids(kw["bob"])
    assert {h.page_id for h in keyword_leg(parse_query("parking garage"), visible, Filters(), cap=1000)} == wide


def test_fuse_rrf_math():
    keyword = [ChunkHit(1, page_id=10, keyword_rank=1), ChunkHit(2, page_id=20, keyword_rank=2)]
    vector = [
        ChunkHit(2, page_id=20, vector_rank=1, vector_distance=0.1),
        ChunkHit(3, page_id=30, vector_rank=2, vector_distance=0.2),
    ]
    pages = fuse(keyword, vector)
    assert [p.page_id for p in pages] == [20, 10, 30]  # found by both legs first
    assert pages[0].score == pytest.approx(1 / 62 + 1 / 61)
    assert pages[1].score == pytest.approx(1 / 61)
    assert pages[2].score == pytest.approx(1 / 62)
    both = pages[0].best
    assert (both.keyword_rank, both.vector_rank, both.vector_distance) == (2, 1, 0.1)


def test_fuse_two_mid_ranks_beat_one_top_rank():
    keyword = [ChunkHit(1, 10, keyword_rank=1)] + [ChunkHit(100 + i, 100 + i, keyword_rank=i) for i in range(2, 10)]
    keyword.append(ChunkHit(2, 20, keyword_rank=10))
    vector = [ChunkHit(200 + i, 200 + i, vector_rank=i) for i in range(1, 10)] + [ChunkHit(2, 20, vector_rank=10)]
    pages = fuse(keyword, vector)
    assert pages[0].page_id == 20  # 2/70 > 1/61
    assert pages[0].score == pytest.approx(2 / 70)


def test_fuse_page_scores_as_its_best_chunk():
    keyword = [ChunkHit(5, 10, keyword_rank=1), ChunkHit(6, 20, keyword_rank=2), ChunkHit(7, 10, keyword_rank=3)]
    pages = fuse(keyword, [])
    assert [p.page_id for p in pages] == [10, 20]
    assert [c.chunk_id for c in pages[0].chunks] == [5, 7]  # best first
    assert pages[0].score == pytest.approx(1 / 61)  # not the sum of its chunks
    assert pages[0].best.chunk_id == 5


def test_fuse_k_parameter_and_ties():
    pages = fuse([ChunkHit(9, 2, keyword_rank=1)], [ChunkHit(8, 1, vector_rank=1)], k=1)
    assert [p.page_id for p in pages] == [1, 2]  # equal scores: lower page id first
    assert pages[0].score == pytest.approx(0.5) and pages[1].score == pytest.approx(0.5)


def test_fuse_translated_query_counts_once_with_the_keyword_query():
    """A chunk found by the query and by its translation scores at its better rank, not twice."""
    keyword = [ChunkHit(1, 10, keyword_rank=1), ChunkHit(2, 20, keyword_rank=2)]
    translated = [ChunkHit(2, 20, keyword_rank=1), ChunkHit(3, 30, keyword_rank=2)]
    pages = fuse(keyword, [], translated=translated)
    assert [p.page_id for p in pages] == [10, 20, 30]
    assert pages[1].score == pytest.approx(1 / 61)  # max(1/62, 1/61), not 1/62 + 1/61
    assert pages[1].best.translated_rank == 1
    assert pages[2].score == pytest.approx(1 / 62)


def test_fuse_vector_weight_override_keeps_distances():
    keyword = [ChunkHit(1, 10, keyword_rank=1)]
    vector = [ChunkHit(2, 20, vector_rank=1, vector_distance=0.1), ChunkHit(1, 10, vector_rank=2, vector_distance=0.2)]
    crosslang = [ChunkHit(3, 30, crosslang_rank=1)]
    pages = fuse(keyword, vector, crosslang=crosslang, crosslang_vector_weight=0.0)
    assert [p.page_id for p in pages] == [10, 30, 20]
    assert pages[0].score == pytest.approx(1 / 61)  # the vector rank adds nothing
    assert pages[2].score == 0.0 and pages[2].best.vector_distance == 0.1  # Ask still sees the distance


def test_fuse_empty_and_input_untouched():
    assert fuse([], []) == []
    hit = ChunkHit(1, 10, keyword_rank=1)
    fuse([hit], [ChunkHit(1, 10, vector_rank=1)])
    assert hit.score == 0.0 and hit.vector_rank is None
