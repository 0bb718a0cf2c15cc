"""Reciprocal rank fusion of the lists into pages."""

from __future__ import annotations

from search.retrieval.hits import ChunkHit, PageHit

RRF_K = 60  # reciprocal rank fusion's usual constant: flattens a list's lead at its first ranks (bench.search)

# RRF weight of each list: alike, but for the plain vector list beside the cross-language list. That
# one is biased to the question's language, by how much depends on the embedding model: its weight
# there is the model's fitted ``vector_weight`` (search/decisions/retrieval.py).
WEIGHTS = {"keyword": 1.0, "vector": 1.0, "crosslang": 1.0, "translated": 1.0}


def _rrf(weights: dict[str, float], leg: str, rank: int | None, k: int) -> float:
    return weights.get(leg, 0.0) / (k + rank) if rank is not None else 0.0


# The plain vector list is pulled toward the question's language. When the language-centred list
# says the answer is in another language, that pull only pushes wrong pages up, so the plain list
# sits out. Short questions are left alone: their detected language is unreliable.
ELSEWHERE_TOP = 10
ELSEWHERE_SHARE = 0.8  # most of those best chunks in another language: the plain list sits out
ELSEWHERE_MIN_WORDS = 4  # shorter questions are left alone: their detected language is unreliable


def answer_elsewhere(crosslang: list[ChunkHit], query_language: str, text: str) -> bool:
    """Whether most of the language-centred list's best chunks are in another language than the question."""
    top = [hit for hit in crosslang[:ELSEWHERE_TOP] if hit.language]
    if not top or len(text.split()) < ELSEWHERE_MIN_WORDS:
        return False
    return sum(hit.language != query_language for hit in top) / len(top) >= ELSEWHERE_SHARE


def fuse(
    keyword: list[ChunkHit],
    vector: list[ChunkHit],
    k: int = RRF_K,
    crosslang: list[ChunkHit] | None = None,
    translated: list[ChunkHit] | None = None,
    vector_weight: float | None = None,
    crosslang_vector_weight: float = WEIGHTS["vector"],
) -> list[PageHit]:
    """Reciprocal rank fusion over chunks; a page scores as its best chunk. The plain vector list
    weighs ``crosslang_vector_weight`` (the model's fitted one) beside the cross-language list, and
    ``vector_weight`` whatever the other lists when given."""
    weights = {**WEIGHTS, "vector": crosslang_vector_weight} if crosslang else WEIGHTS
    if vector_weight is not None:
        weights = {**weights, "vector": vector_weight}
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
