"""Reciprocal rank fusion of the lists into pages."""

from __future__ import annotations

from config.numbers import RRF_K
from search.retrieval.hits import ChunkHit, PageHit

# RRF weight of each list: alike, but for the plain vector list beside the cross-language list. That
# one is biased to the question's language, by how much depends on the embedding model: its weight
# there is the model's fitted ``vector_weight`` (search/decisions/retrieval.py).
WEIGHTS = {"keyword": 1.0, "vector": 1.0, "crosslang": 1.0, "translated": 1.0}


def _rrf(weights: dict[str, float], leg: str, rank: int | None, k: int) -> float:
    return weights.get(leg, 0.0) / (k + rank) if rank is not None else 0.0


def fuse(
    keyword: list[ChunkHit],
    vector: list[ChunkHit],
    k: int = RRF_K,
    crosslang: list[ChunkHit] | None = None,
    translated: list[ChunkHit] | None = None,
    crosslang_vector_weight: float = WEIGHTS["vector"],
) -> list[PageHit]:
    """Reciprocal rank fusion over chunks; a page scores as its best chunk. The plain vector list
    weighs ``crosslang_vector_weight`` (the model's fitted one) beside the cross-language list."""
    weights = {**WEIGHTS, "vector": crosslang_vector_weight} if crosslang else WEIGHTS
    merged: dict[int, ChunkHit] = {}
    for hit in keyword:
        merged[hit.chunk_id] = ChunkHit(hit.chunk_id, hit.page_id, keyword_rank=hit.keyword_rank, coverage=hit.coverage)
    for hit in vector:
        entry = merged.setdefault(hit.chunk_id, ChunkHit(hit.chunk_id, hit.page_id))
        entry.vector_rank, entry.vector_distance = hit.vector_rank, hit.vector_distance
    for hit in crosslang or []:
        merged.setdefault(hit.chunk_id, ChunkHit(hit.chunk_id, hit.page_id)).crosslang_rank = hit.crosslang_rank
    for rank, hit in enumerate(translated or [], start=1):
        entry = merged.setdefault(hit.chunk_id, ChunkHit(hit.chunk_id, hit.page_id))
        entry.translated_rank = rank
        # The share of the query's words the chunk holds, in the query's words or translated.
        if hit.coverage is not None:
            entry.coverage = max(entry.coverage or 0.0, hit.coverage)
    for hit in merged.values():
        # The translated query is another wording of the keyword query: a chunk found by both
        # counts once, at its better rank (summing them let translation noise outrank native hits).
        words = max(_rrf(weights, "keyword", hit.keyword_rank, k), _rrf(weights, "translated", hit.translated_rank, k))
        hit.score = (
            words + _rrf(weights, "vector", hit.vector_rank, k) + _rrf(weights, "crosslang", hit.crosslang_rank, k)
        )
    by_page: dict[int, list[ChunkHit]] = {}
    for hit in sorted(merged.values(), key=lambda h: (-h.score, h.chunk_id)):
        by_page.setdefault(hit.page_id, []).append(hit)
    pages = [PageHit(page_id=pid, score=hits[0].score, chunks=hits) for pid, hits in by_page.items()]
    pages.sort(key=lambda p: (-p.score, p.page_id))
    return pages


def without_weak_word_matches(pages: list[PageHit], least: float) -> list[PageHit]:
    """The pages, less those that only the word lists (typed or translated) found and that hold less
    than ``least`` of the question's words.

    With the meaning lists run, a result is a page close in meaning or one that holds most of the
    question's words: one common word of four ("budget" in "team offsite budget") is not a match,
    and a word-by-word translation is noisy ("frais" -> "fair"). ``retrieve`` applies it only when the
    vector lists found something; without vectors the words are the only way to a page.
    """
    return [
        page
        for page in pages
        if any(c.vector_rank is not None or c.crosslang_rank is not None for c in page.chunks)
        or max((c.coverage or 0.0) for c in page.chunks) >= least - 1e-9
    ]


def found_by_words(pages: list[PageHit]) -> list[PageHit]:
    """The pages that a word list (the typed words or their translation) found."""
    return [p for p in pages if any(c.keyword_rank is not None or c.translated_rank is not None for c in p.chunks)]
