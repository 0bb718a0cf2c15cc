"""The vector lists: nearest chunks among the visible pages, by HNSW walk or exact scan."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django.db import transaction
from pgvector import Vector

from config.numbers import (
    EXACT_SCAN_ALWAYS_CHUNKS,
    EXACT_SCAN_MAX_CHUNKS,
    EXACT_SCAN_MAX_SHARE,
    HNSW_DIMENSIONS,
    HNSW_EF_SEARCH,
    LEG_DEPTH,
    VECTOR_TEXT_CACHE_SIZE,
)
from core.db_router import read_connection
from search.retrieval.hits import ChunkHit, Filters
from search.retrieval.visibility import VisiblePages


@lru_cache(maxsize=VECTOR_TEXT_CACHE_SIZE)
def _text_of(values: tuple[float, ...]) -> str:
    return Vector(list(values)).to_text()


def vector_text(vector: Any) -> str:
    """pgvector's text form of ``vector`` (cast with ``::vector``). A search sends the same vector to
    several statements (the plain walk, the language partitions): the vector is formatted once."""
    return _text_of(tuple(float(v) for v in vector))


def use_exact_scan(visible: VisiblePages | list[int]) -> bool:
    """Exact search when the visible set is small or a small share of the index.

    HNSW walks the graph and filters afterwards: with a selective filter most
    neighbours are discarded and recall drops, while an exact scan over a few
    thousand visible rows is fast. With most rows visible, HNSW wins.
    """
    chunks, share = (visible if isinstance(visible, VisiblePages) else VisiblePages(visible)).estimate
    return chunks <= EXACT_SCAN_ALWAYS_CHUNKS or (share <= EXACT_SCAN_MAX_SHARE and chunks <= EXACT_SCAN_MAX_CHUNKS)


def _exact_scan_visibility(visible: VisiblePages, filters: Filters) -> tuple[str, list[Any]]:
    """The visibility test of an exact scan: rows are fetched by page (ids the page_id index can
    serve), or by language for one language's partition (the chunk_language index)."""
    return visible.clause("c.page_id", index=not filters.language)


def vector_leg(
    vector: list[float],
    model: str,
    visible: VisiblePages | list[int],
    filters: Filters,
    depth: int = LEG_DEPTH,
    exact: bool | None = None,
    ef_search: int = HNSW_EF_SEARCH,
    max_distance: float | None = None,
) -> list[ChunkHit]:
    """Nearest chunks among the visible pages (``visible``: page ids from ``visible_to``).

    ``max_distance``: farther chunks are not hits (the similarity floor, ``search/decisions/query.py``).
    """
    return _nearest(vector, model, visible, filters, depth, exact, ef_search, max_distance)[0]


def walk_with_native_partition(
    vector: list[float],
    centred: Any,
    language: str,
    model: str,
    visible: VisiblePages,
    filters: Filters,
    depth: int = LEG_DEPTH,
    max_distance: float | None = None,
) -> tuple[list[ChunkHit], list[ChunkHit]]:
    """The plain HNSW walk, and from the same rows the query language's language-centred list.

    The query's own language holds nearly all of the plain walk's nearest chunks, and in that
    partition the centred order is the plain order corrected by each chunk's share of the language
    mean: the centred distances of the walk's rows give that list without a walk of its own (the
    other languages still walk their partitions). bench.search's scale section times both walks.
    """
    plain, centred_distances = _nearest(
        vector, model, visible, filters, depth, False, HNSW_EF_SEARCH, max_distance, centred_unit=centred.unit
    )
    native = sorted(
        (hit for hit in plain if hit.language == language), key=lambda h: (centred_distances[h.chunk_id], h.chunk_id)
    )
    return plain, [
        ChunkHit(h.chunk_id, h.page_id, vector_rank=i + 1, vector_distance=centred_distances[h.chunk_id])
        for i, h in enumerate(native)
    ]


def _nearest(
    vector: list[float],
    model: str,
    visible: VisiblePages | list[int],
    filters: Filters,
    depth: int,
    exact: bool | None,
    ef_search: int,
    max_distance: float | None,
    centred_unit: list[float] | None = None,
) -> tuple[list[ChunkHit], dict[int, float]]:
    """``vector_leg``'s hits; with ``centred_unit`` (HNSW only) each hit's language and its distance
    to that vector too."""
    visible = visible if isinstance(visible, VisiblePages) else VisiblePages(visible)  # ids as tests give them
    if not visible:
        return [], {}
    filter_sql, filter_params = filters.sql()
    if exact is None:
        exact = len(vector) != HNSW_DIMENSIONS or use_exact_scan(visible)
    literal = vector_text(vector)
    # Cosine distance is at most 2: the "no floor" test keeps every row.
    max_distance = 2.0 if max_distance is None else max_distance
    if exact:
        # Ordered by the raw column, which no HNSW index matches (they index embedding::vector(384)):
        # the visible rows are fetched and sorted exactly. No MATERIALIZED copy of the rows: copying
        # the vectors cost more than the search (bench.search scale times it).
        visible_sql, visible_params = _exact_scan_visibility(visible, filters)
        sql = f"""
            SELECT c.id, c.page_id, c.embedding <=> %s::vector AS distance FROM search_chunk c
            WHERE {visible_sql} AND c.embedding_model = %s AND c.embedding IS NOT NULL
              AND c.embedding <=> %s::vector <= %s {filter_sql}
            ORDER BY distance, c.id LIMIT %s
        """  # noqa: S608 - composed from our own SQL, values are parameters
        params = [literal, *visible_params, model, literal, max_distance, *filter_params, depth]
        with read_connection().cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
    else:
        # The visibility test is a per-row filter so the index scan stays
        # ordered and stops as soon as LIMIT rows have passed it.
        visible_sql, visible_params = visible.clause("c.page_id")
        extra, extra_params = "", []
        if centred_unit is not None:
            extra = f", c.language, (c.embedding::vector({HNSW_DIMENSIONS})) <=> %s::vector({HNSW_DIMENSIONS})"
            extra_params = [vector_text(centred_unit)]
        sql = f"""
            SELECT * FROM (
                SELECT c.id, c.page_id, (c.embedding::vector({HNSW_DIMENSIONS})) <=> %s::vector({HNSW_DIMENSIONS})
                       AS distance{extra}
                FROM search_chunk c
                WHERE vector_dims(c.embedding) = {HNSW_DIMENSIONS} AND c.embedding_model = %s
                  AND {visible_sql} {filter_sql}
                ORDER BY distance LIMIT %s
            ) hits WHERE distance <= %s ORDER BY distance, id
        """  # noqa: S608
        # The floor tests the walk's output: the walk yields chunks nearest first, so the chunks within
        # the floor are the same as if the test ran inside it (where it would stop iterative scans late).
        params = [literal, *extra_params, model, *visible_params, *filter_params, depth, max_distance]
        reader = read_connection()
        with transaction.atomic(using=reader.alias), reader.cursor() as cursor:
            # Transaction-local settings, in one round trip. pgvector 0.8 iterative scans keep walking
            # the graph until LIMIT rows pass the filter; enable_seqscan off because we chose the
            # index: the planner cannot estimate the bitmap test and might sort the table.
            cursor.execute(
                "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true),"
                " set_config('hnsw.ef_search', %s, true), set_config('enable_seqscan', 'off', true)",
                [str(int(ef_search))],
            )
            cursor.execute(sql, params)
            rows = cursor.fetchall()
    hits = [
        ChunkHit(chunk_id=r[0], page_id=r[1], vector_rank=i + 1, vector_distance=float(r[2]))
        for i, r in enumerate(rows)
    ]
    if centred_unit is None or exact:
        return hits, {}
    for hit, row in zip(hits, rows, strict=True):
        hit.language = row[3]
    return hits, {row[0]: float(row[4]) for row in rows}


def exact_vector_lists(
    vector: list[float],
    centred: Any,
    model: str,
    visible: VisiblePages,
    filters: Filters,
    depth: int = LEG_DEPTH,
    min_similarity: float = -1.0,
) -> tuple[list[ChunkHit], dict[str, list[ChunkHit]]]:
    """The exact vector leg and each language partition's exact centred list, from one scan.

    Exact search reads every visible row, and reading rows is what costs (bench.search's scale
    section), so the plain and the language-centred distances are computed
    in one pass (kept: ids and two distances, not the vectors) instead of one scan for the
    plain leg and one per language. Same results
    as ``vector_leg(exact=True)`` and ``crosslang_leg(exact=True)`` (tested). The plain list keeps the
    chunks at least ``min_similarity`` close; the centred lists are cut by ``merge_partitions``.
    """
    if not visible:
        return [], {}
    filter_sql, filter_params = filters.sql()
    visible_sql, visible_params = _exact_scan_visibility(visible, filters)
    languages = list(centred.sizes)
    sql = f"""
        WITH scored AS MATERIALIZED (
            SELECT c.id, c.page_id, c.language, c.embedding <=> %s::vector AS plain,
                   c.embedding <=> %s::vector AS centred
            FROM search_chunk c
            WHERE {visible_sql} AND c.embedding_model = %s AND c.embedding IS NOT NULL
            {filter_sql}
        )
        (SELECT '', id, page_id, plain FROM scored WHERE plain <= %s ORDER BY plain, id LIMIT %s)
        UNION ALL
        (SELECT l.language, p.id, p.page_id, p.centred FROM unnest(%s::text[]) AS l(language)
         CROSS JOIN LATERAL (
             SELECT id, page_id, centred FROM scored WHERE scored.language = l.language
             ORDER BY centred, id LIMIT %s
         ) p)
    """  # noqa: S608 - composed from our own SQL, values are parameters
    params = [
        vector_text(vector),
        vector_text(centred.unit),
        *visible_params,
        model,
        *filter_params,
        1.0 - min_similarity,
        depth,
        languages,
        depth,
    ]
    with read_connection().cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    plain: list[ChunkHit] = []
    per_language: dict[str, list[ChunkHit]] = {language: [] for language in languages}
    for language, chunk_id, page_id, distance in rows:
        hits = per_language[language] if language else plain
        hits.append(ChunkHit(chunk_id, page_id, vector_rank=len(hits) + 1, vector_distance=float(distance)))
    return plain, per_language
