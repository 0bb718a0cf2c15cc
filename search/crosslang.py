"""Cross-language vector candidates: a French question finds the English page, and back.

Multilingual embeddings carry a strong language component: a French question
sits closer to every French chunk than to the English chunk that answers it.
Subtracting each language's mean chunk vector (mean-centering per language)
removes most of that pull. Within one language partition, ranking chunks by
``(c - μ_L) · (q - α μ_q)`` is ranking by cosine to the fixed vector
``q' = q - α μ_q`` — so the HNSW index still serves each partition — and the
partitions are merged by adding the constant ``-α μ_L · q'``.

Measured on the dev-crosslang questions (bench/search.py): translated questions
gain ~0.1–0.2 nDCG@10 while native ones stay within 0.02.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.core.cache import cache
from django.db import connection

logger = logging.getLogger(__name__)

ALPHA = 0.8  # how much of the language mean to remove (1.0 over-corrects native questions)
MIN_CHUNKS_PER_LANGUAGE = 50  # a mean over fewer chunks is too noisy to trust
MEANS_TTL_S = 600
# A partition this small (visible chunks) is scanned exactly (~2 ms); larger ones walk their own
# HNSW graph (partial index per language, migration 0009).
PARTITION_EXACT_CHUNKS = 2_000
# hnsw.ef_search of the partition walks: translated questions rely on this list. 300 measured the
# same on dev-crosslang (HNSW forced) and no faster beyond noise at 100k chunks; 250 lost a question.
PARTITION_EF_SEARCH = 400


def means_cache_key(model: str) -> str:
    return f"crosslang:means:v2:{model}"  # v2: parsed arrays (v1 held text)


def language_stats(model: str) -> dict[str, tuple[np.ndarray, int]]:
    """(mean embedding, chunk count) per language with enough chunks for ``model`` (cached)."""
    key = means_cache_key(model)
    cached = cache.get(key)
    if cached is None:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT language, avg(embedding)::text, count(*) FROM search_chunk"
                " WHERE embedding_model = %s AND embedding IS NOT NULL GROUP BY language",
                [model],
            )
            # Parsed once here, not on every search that reads the cache.
            cached = {
                lang: (np.array([float(x) for x in text.strip("[]").split(",")], dtype=np.float32), int(n))
                for lang, text, n in cursor.fetchall()
            }
        cache.set(key, cached, MEANS_TTL_S)
    return {lang: (mean, n) for lang, (mean, n) in cached.items() if n >= MIN_CHUNKS_PER_LANGUAGE}


@dataclass
class CentredQuery:
    """The query vector with its language's mean taken out, and what each partition adds back."""

    unit: list[float]  # q' / |q'|: the vector each partition is searched with
    norm: float  # |q'|
    offsets: dict[str, float]  # language -> α μ_L · q', subtracted from that partition's scores
    sizes: dict[str, int]  # language -> chunks (all of them, visible or not)


def centred_query(vector: list[float], model: str, query_language: str, filters: Any) -> CentredQuery | None:
    """None when there is nothing to centre: one language only, or the query's language unknown."""
    stats = language_stats(model)
    means = {lang: mean for lang, (mean, _n) in stats.items()}
    if len(means) < 2 or query_language not in means:
        return None  # one language only: the plain vector leg already covers it
    query = np.asarray(vector, dtype=np.float32)
    if means[query_language].shape != query.shape:
        return None
    centred = query - ALPHA * means[query_language]
    norm = float(np.linalg.norm(centred))
    if norm == 0.0:
        return None
    languages = [lang for lang in means if not (filters.language and filters.language != lang)]
    return CentredQuery(
        unit=(centred / norm).tolist(),
        norm=norm,
        offsets={lang: ALPHA * float(means[lang] @ centred) for lang in languages},
        sizes={lang: stats[lang][1] for lang in languages},
    )


def merge_partitions(per_language: dict[str, list[Any]], centred: CentredQuery, depth: int) -> list[Any]:
    """One list from each partition's nearest chunks (cosine distance to ``centred.unit``), best first."""
    from search.retrieval import ChunkHit

    scored: list[tuple[float, Any, str]] = []
    for language, hits in per_language.items():
        for hit in hits:
            dot = (1.0 - (hit.vector_distance or 0.0)) * centred.norm  # c · q' for unit-length c
            scored.append((dot - centred.offsets[language], hit, language))
    scored.sort(key=lambda item: (-item[0], item[1].chunk_id))
    return [
        ChunkHit(chunk_id=h.chunk_id, page_id=h.page_id, crosslang_rank=i + 1, language=language)
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
    from search.retrieval import Filters, vector_leg
    from search.visibility import as_visible

    visible = as_visible(visible)
    partition = Filters(space=filters.space, language=language)
    small = centred.sizes[language] * visible.estimate[1] <= PARTITION_EXACT_CHUNKS
    return vector_leg(
        centred.unit, model, visible, partition, depth, True if small else exact, ef_search=PARTITION_EF_SEARCH
    )


def crosslang_leg(
    vector: list[float],
    model: str,
    query_language: str,
    visible: Any,
    filters: Any,
    depth: int,
    exact: bool | None = None,
    centred: CentredQuery | None = None,
) -> list[Any]:
    """Language-centred nearest chunks across every language partition, best first.

    ``centred``: the caller's ``centred_query`` for this vector, if it has one.
    """
    centred = centred or centred_query(vector, model, query_language, filters)
    if centred is None:
        return []
    per_language = {
        language: partition_leg(centred, language, model, visible, filters, depth, exact) for language in centred.sizes
    }
    return merge_partitions(per_language, centred, depth)
