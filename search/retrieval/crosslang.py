"""Cross-language vector candidates: a French question finds the English page, and back.

Multilingual embeddings carry a strong language component: a French question
sits closer to every French chunk than to the English chunk that answers it.
Subtracting each language's mean chunk vector (mean-centering per language)
removes most of that pull. Within one language partition, ranking chunks by
``(c - μ_L) · (q - α μ_q)`` is ranking by cosine to the fixed vector
``q' = q - α μ_q`` — so the HNSW index still serves each partition — and the
partitions are merged by adding the constant ``-α μ_L · q'``. How much of the mean to take out (α)
depends on the model: it is fitted per model with its policy (``search/decisions/retrieval.py``);
α = 0 (fitted so) means no language-centred list; without a fitted value the mean is taken out whole.

Measured on the dev-crosslang questions (bench/search.py): translated questions
gain and native ones stay within noise.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.core.cache import cache
from pgvector import Vector

from config.numbers import MEANS_TTL_S, MIN_CHUNKS_PER_LANGUAGE, PARTITION_EF_SEARCH, PARTITION_EXACT_CHUNKS
from core.db_router import read_connection
from search.retrieval.hits import ChunkHit, Filters
from search.retrieval.vector import vector_leg
from search.retrieval.visibility import VisiblePages
from search.statistics import stamps
from search.statistics.scopes import EVERYTHING, Reader, scoped_chunks_sql

logger = logging.getLogger(__name__)


def means_cache_key(model: str) -> str:
    return f"crosslang:means:v4:{model}"  # v4: with the scope stamps counted (v3: sums per scope)


def _scope_sums(model: str, reader: Reader = EVERYTHING) -> list[tuple[int, tuple[int, ...], str, np.ndarray, int]]:
    """(space id, restriction groups, language, sum of embeddings, chunks) per scope (cached).

    Counted again when a scope ``reader`` may read has had a page enter or leave it since
    (``search/statistics/stamps.py``): a page restricted a moment ago no longer pulls the means
    of the readers it was taken from, whether or not the cache entry has expired.
    """
    key = means_cache_key(model)
    cached = cache.get(key)
    # The reader's stamps as the search read them with the reader (one read for every statistic).
    if cached is None or reader.changed_since(cached["stamps"]):
        counted_at = stamps.current()  # before counting: a change meanwhile is counted again next time
        with read_connection().cursor() as cursor:
            cursor.execute(
                "SELECT space_id, groups, chunk_language, sum(embedding)::text, count(*) FROM ("  # noqa: S608
                + scoped_chunks_sql("c.embedding_model = %s AND c.embedding IS NOT NULL")
                + ") scoped GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
                [model],
            )
            # Parsed once here, not on every search that reads the cache.
            sums = [
                (space_id, tuple(groups), lang, Vector.from_text(total).to_numpy().astype(np.float64), int(n))
                for space_id, groups, lang, total, n in cursor.fetchall()
            ]
        cached = {"stamps": counted_at, "sums": sums}
        cache.set(key, cached, MEANS_TTL_S)
    return cached["sums"]


def language_stats(model: str, reader: Reader = EVERYTHING) -> dict[str, tuple[np.ndarray, int]]:
    """(mean embedding, chunk count) per language with enough chunks for ``model``, over the
    scopes ``reader`` may read only: hidden pages never move a reader's centred list."""
    sums: dict[str, tuple[np.ndarray, int]] = {}
    for space_id, groups, lang, total, n in _scope_sums(model, reader):
        if reader.reads(space_id, groups):
            known = sums.get(lang)
            sums[lang] = (total, n) if known is None else (known[0] + total, known[1] + n)
    return {
        lang: ((total / n).astype(np.float32), n) for lang, (total, n) in sums.items() if n >= MIN_CHUNKS_PER_LANGUAGE
    }


@dataclass
class CentredQuery:
    """The query vector with its language's mean taken out, and what each partition adds back."""

    unit: list[float]  # q' / |q'|: the vector each partition is searched with
    norm: float  # |q'|
    offsets: dict[str, float]  # language -> α μ_L · q', subtracted from that partition's scores
    sizes: dict[str, int]  # language -> chunks the reader may read


def centred_query(  # noqa: PLR0913 - the query, where it is asked, and the model's fitted α
    vector: list[float],
    model: str,
    query_language: str,
    filters: Any,
    reader: Reader = EVERYTHING,
    *,
    centring: float,
) -> CentredQuery | None:
    """The query less ``centring`` (α, the model's fitted share) of its language's mean; None when
    there is nothing to centre: α = 0, one language only, or the query's language unknown."""
    if centring <= 0.0:
        return None  # no share of the mean to take out: the plain vector list is the list
    stats = language_stats(model, reader)
    means = {lang: mean for lang, (mean, _n) in stats.items()}
    if len(means) < 2 or query_language not in means:
        return None  # one language only: the plain vector leg already covers it
    query = np.asarray(vector, dtype=np.float32)
    if means[query_language].shape != query.shape:
        return None
    centred = query - centring * means[query_language]
    norm = float(np.linalg.norm(centred))
    if norm == 0.0:
        return None
    languages = [lang for lang in means if not (filters.language and filters.language != lang)]
    return CentredQuery(
        unit=(centred / norm).tolist(),
        norm=norm,
        offsets={lang: centring * float(means[lang] @ centred) for lang in languages},
        sizes={lang: stats[lang][1] for lang in languages},
    )


def merge_partitions(
    per_language: dict[str, list[Any]], centred: CentredQuery, depth: int, min_similarity: float = -1.0
) -> list[Any]:
    """One list from each partition's nearest chunks (cosine distance to ``centred.unit``), best first.

    A chunk whose cosine to ``centred.unit`` is below ``min_similarity`` is not a hit (the similarity
    floor, ``search/retrieval/relevance.py``). Each partition's list is ordered by that cosine, so the chunks
    kept are the ones a floor inside each partition's search would have kept.
    """

    scored: list[tuple[float, Any, str]] = []
    for language, hits in per_language.items():
        for hit in hits:
            if 1.0 - (hit.vector_distance or 0.0) < min_similarity:
                continue
            dot = (1.0 - (hit.vector_distance or 0.0)) * centred.norm  # c · q' for unit-length c
            scored.append((dot - centred.offsets[language], hit, language))
    scored.sort(key=lambda item: (-item[0], item[1].chunk_id))
    return [
        ChunkHit(
            chunk_id=h.chunk_id,
            page_id=h.page_id,
            crosslang_rank=i + 1,
            language=language,
            vector_distance=h.vector_distance,  # to the centred query
        )
        for i, (_score, h, language) in enumerate(scored[:depth])
    ]


def partition_leg(
    centred: CentredQuery,
    language: str,
    model: str,
    visible: Any,
    filters: Any,
    depth: int,
    exact: bool | None = None,
) -> list[Any]:
    """One language partition's nearest chunks to ``centred.unit`` (merge with ``merge_partitions``).

    ``exact`` is the plain leg's choice for the whole visible set; a partition
    small enough is searched exactly whatever it says.
    """

    visible = visible if isinstance(visible, VisiblePages) else VisiblePages(visible)  # ids as tests give them
    partition = Filters(space=filters.space, language=language)
    small = centred.sizes[language] <= PARTITION_EXACT_CHUNKS  # readable chunks of the language
    return vector_leg(
        centred.unit, model, visible, partition, depth, True if small else exact, ef_search=PARTITION_EF_SEARCH
    )
