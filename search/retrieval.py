"""Hybrid retrieval: keyword leg + vector leg, fused by reciprocal rank fusion.

One query path for everything (views, CLI, Ask). Both legs start from the
pages the user may read, as SQL inside the same statement, so permission
filtering happens before ranking and ``LIMIT``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django.db import transaction

from handbook.db_router import read_connection
from search import parallel
from search.crosslang import centred_query, merge_partitions, partition_leg
from search.embedding_cache import query_embedding
from search.embedding_switch import query_embedder
from search.lexemes import CONFIGS, term_weights
from search.query import ParsedQuery, parse_query, tsquery_text
from search.relevance import NO_FLOOR, Floor, similarity_floor
from search.scopes import Reader, reader_of
from search.suggest import corrections
from search.text import STOPWORDS, detect_language
from search.translation import query_translations
from search.visibility import VisiblePages, as_visible, visible_pages

logger = logging.getLogger(__name__)

RRF_K = 60
ALL_STOPWORDS = frozenset().union(*STOPWORDS.values())
LEG_DEPTH = 100  # chunks each leg contributes to fusion
KEYWORD_CANDIDATE_CAP = 1000  # matches ranked at most (each is a heap row read); candidates: the rarest words first
# The word-translated query's pass: half the candidates. Its words are guesses; measured on
# dev-crosslang, translated questions equal or better at 500 (betagouv 0.469 -> 0.472), lower at 300.
TRANSLATED_CANDIDATE_CAP = 500
EXACT_SCAN_ALWAYS_CHUNKS = 10_000  # this few visible chunks: exact search (~1 µs a row), whatever the share
EXACT_SCAN_MAX_SHARE = 0.2  # a filter this selective loses HNSW recall: exact search…
EXACT_SCAN_MAX_CHUNKS = 30_000  # …unless the visible set is this large
HNSW_DIMENSIONS = 384  # dimension covered by the HNSW expression index
# Candidates the plain leg's HNSW walk keeps (hnsw.ef_search). At 200: 100k chunks, 100 % visible,
# recall@10 0.991 / @100 0.972 against exact in 4.9 ms (400: 1.000 / 0.995 in 8.8 ms). With HNSW
# forced on the dev corpora, native questions are unchanged and translated ones lose one question
# each (etalab 0.644 -> 0.612, betagouv 0.469 -> 0.444; 300 loses the same etalab one).
HNSW_EF_SEARCH = 200


@dataclass
class ChunkHit:
    chunk_id: int
    page_id: int
    score: float = 0.0
    keyword_rank: int | None = None
    vector_rank: int | None = None
    vector_distance: float | None = None
    crosslang_rank: int | None = None
    translated_rank: int | None = None
    language: str = ""  # the chunk's language, where the leg knows it (the language-centred list)
    coverage: float | None = None  # keyword lists: share of the query words' IDF the chunk holds


@dataclass
class PageHit:
    page_id: int
    score: float
    chunks: list[ChunkHit]

    @property
    def best(self) -> ChunkHit:
        return self.chunks[0]


@dataclass
class Retrieval:
    query: ParsedQuery
    pages: list[PageHit]  # all fused pages, best first
    query_language: str
    timings: dict[str, float] = field(default_factory=dict)
    used_vectors: bool = False
    query_vector: list[float] | None = None  # what later steps (Ask's sentence choice) reuse
    embedder: Any = None  # the serving query embedder the vector came from


@dataclass
class Filters:
    space: str | None = None
    language: str | None = None

    def sql(self) -> tuple[str, list[Any]]:
        clauses, params = [], []
        if self.space:
            clauses.append(
                "AND c.page_id IN (SELECT p.id FROM handbook_page p JOIN handbook_space s ON s.id = p.space_id"
                " WHERE s.slug = %s)"
            )
            params.append(self.space)
        if self.language:
            clauses.append("AND c.language = %s")
            params.append(self.language)
        return " ".join(clauses), params


# --- keyword leg -----------------------------------------------------------------

TITLE_BONUS = 0.5  # extra weight of a term found in the title or heading path (tsvector weights A/B)
# Candidates come from the rarest words (as many as fit in the cap together); the other words only score.
RERANK_DEPTH = 300  # keyword candidates re-ranked with ts_rank (term frequency) as a tie-breaker…
TIE_BREAK = 0.1  # …worth at most this much (ts_rank capped at 1)
# A keyword hit holds this share of the query words' IDF (0: any one word). And when even the nearest
# chunk is not clearly close in meaning (search/relevance.py, ``Floor.confident``), the words must carry
# the match: a keyword hit then holds KEYWORD_ALONE_COVERAGE of it (a word no readable page holds has
# the highest IDF). Calibrated with bench/no_match.py together with the similarity floors.
KEYWORD_MIN_COVERAGE = 0.0
KEYWORD_ALONE_COVERAGE = 0.5


def _language_clause(language: str) -> str:
    if language == "other":
        return "c.language NOT IN (" + ", ".join(f"'{code}'" for code in CONFIGS) + ")"
    return f"c.language = '{language}'"


def _candidate_terms(terms: list[Any], cap: int) -> list[Any]:
    """The rarest words whose matches fit in the candidate cap together (at least one word).

    Past the cap the scan keeps whichever rows it meets first (physical order): a complete set
    of the chunks holding the rarest words beats an arbitrary sample of everything. Measured at
    100k chunks (keyword leg alone, cap 1000): nDCG@10 as uncapped on cnil/service-public/betagouv,
    etalab +0.05, 18f -0.015, p50/p95 16/32 -> 11/17 ms against "any selective word, cap 3000".
    """
    chosen, total = [], 0
    for term in sorted(terms, key=lambda t: (t.ndoc, t.term)):
        if chosen and total + term.ndoc > cap:
            break
        chosen.append(term)
        total += term.ndoc
    return chosen


def keyword_leg(
    parsed: ParsedQuery,
    visible: VisiblePages | list[int],
    filters: Filters,
    depth: int = LEG_DEPTH,
    cap: int | None = None,
    min_coverage: float | None = None,
) -> list[ChunkHit]:
    """Chunks scored by the IDF of the query terms they contain (OR semantics), per language config.

    Phrases and exclusions are hard constraints of the candidate query. Plain
    words are optional: candidates come from the rarest words, so a common word
    cannot flood the capped candidate set; every word scores. A chunk is a hit when
    the words it holds carry ``min_coverage`` of the query words' IDF (default
    ``KEYWORD_MIN_COVERAGE``), tested before the list is ranked and cut.
    """
    if parsed.is_empty:
        return []
    cap = KEYWORD_CANDIDATE_CAP if cap is None else cap
    min_coverage = KEYWORD_MIN_COVERAGE if min_coverage is None else min_coverage
    # A stop-word of any handbook language ("de", "le", "que") is rare in the other language's
    # partition and would get a high IDF there, pulling in pages of the wrong language.
    content_terms = [t for t in parsed.terms if t not in ALL_STOPWORDS] or parsed.terms
    visible = as_visible(visible)
    if not visible:
        return []
    weights = term_weights(content_terms, visible.reader)
    filter_sql, filter_params = filters.sql()
    selects: list[str] = []
    # "+ 0": the page_id index must not replace the full-text index as the way in.
    visible_sql, visible_params = visible.clause("(c.page_id + 0)")
    params: list[Any] = []
    wanted = filters.language if filters.language in CONFIGS else "other" if filters.language else None
    for language in (*CONFIGS, "other"):
        if wanted and language != wanted:
            continue  # the language filter empties every other partition
        config = CONFIGS.get(language, "simple")
        terms = weights.get(language, [])
        if not terms and not parsed.phrases:
            continue  # only stop-words for this language
        selective = _candidate_terms(terms, cap)
        candidate = ParsedQuery(
            raw=parsed.raw, terms=[t.term for t in selective], phrases=parsed.phrases, excluded=parsed.excluded
        )
        score_parts = [
            f"{t.idf:.6f} * ((c.search_vector @@ to_tsquery('{config}', %s))::int"
            f" + {TITLE_BONUS} * (c.search_vector @@ to_tsquery('{config}', %s))::int)"
            for t in terms
        ]
        score_params: list[Any] = [x for t in terms for x in (t.term, t.term + ":AB")]
        score = " + ".join(score_parts) or "1.0"
        # The share of the query words' IDF the chunk holds (1 for a phrase-only query).
        total = sum(t.idf for t in terms)
        held = [f"{t.idf / total:.6f} * (c.search_vector @@ to_tsquery('{config}', %s))::int" for t in terms]
        coverage = " + ".join(held) if total > 0 else "1.0"
        coverage_params: list[Any] = [t.term for t in terms] if total > 0 else []
        selects.append(
            f"""(SELECT id, page_id, search_vector, '{config}'::regconfig AS cfg, score, coverage FROM (
                    SELECT c.id, c.page_id, c.search_vector, {score} AS score, {coverage} AS coverage
                    FROM (SELECT c.id, c.page_id, c.search_vector || ''::tsvector AS search_vector
                          FROM search_chunk c
                          WHERE {_language_clause(language)} AND {visible_sql}
                            AND c.search_vector @@ to_tsquery('{config}', %s) {filter_sql}
                          LIMIT %s) c
                 ) scored WHERE coverage >= %s ORDER BY score DESC, id LIMIT %s)"""
        )
        params += [
            *score_params,
            *coverage_params,
            *visible_params,
            tsquery_text(candidate),
            *filter_params,
            cap,
            min_coverage - 1e-9,  # the shares are rounded: a chunk holding every word passes 1.0
            RERANK_DEPTH,
        ]
    if not selects:
        return []
    # ts_rank (term frequency) only breaks ties, and it reads every row it ranks: a row whose score
    # is more than TIE_BREAK below the depth-th best cannot reach the list, so it is not ranked.
    sql = f"""
        WITH hits AS MATERIALIZED ({" UNION ALL ".join(selects)}),
        cut AS (SELECT score FROM hits ORDER BY score DESC OFFSET %s LIMIT 1)
        SELECT id, page_id, coverage, score + CASE
                WHEN score + {TIE_BREAK} >= COALESCE((SELECT score FROM cut), 0)
                THEN {TIE_BREAK} * LEAST(ts_rank(search_vector, to_tsquery(cfg, %s), 1), 1) ELSE 0 END AS final
        FROM hits ORDER BY final DESC, id LIMIT %s
    """  # noqa: S608 - composed from our own SQL; every value is a parameter
    params += [max(depth - 1, 0), tsquery_text(ParsedQuery(raw=parsed.raw, terms=parsed.positive_words)), depth]
    with read_connection().cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [ChunkHit(chunk_id=r[0], page_id=r[1], keyword_rank=i + 1, coverage=float(r[2])) for i, r in enumerate(rows)]


# --- vector leg ------------------------------------------------------------------


def use_exact_scan(visible: VisiblePages | list[int]) -> bool:
    """Exact search when the visible set is small or a small share of the index.

    HNSW walks the graph and filters afterwards: with a selective filter most
    neighbours are discarded and recall drops, while an exact scan over a few
    thousand visible rows is fast. With most rows visible, HNSW wins.
    """
    chunks, share = as_visible(visible).estimate
    return chunks <= EXACT_SCAN_ALWAYS_CHUNKS or (share <= EXACT_SCAN_MAX_SHARE and chunks <= EXACT_SCAN_MAX_CHUNKS)


def _vector_literal(vector: list[float]) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in vector) + "]"


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

    ``max_distance``: farther chunks are not hits (the similarity floor, ``search/relevance.py``).
    """
    visible = as_visible(visible)
    if not visible:
        return []
    filter_sql, filter_params = filters.sql()
    if exact is None:
        exact = len(vector) != HNSW_DIMENSIONS or use_exact_scan(visible)
    literal = _vector_literal(vector)
    # Cosine distance is at most 2: the "no floor" test keeps every row.
    max_distance = 2.0 if max_distance is None else max_distance
    if exact:
        # Ordered by the raw column, which no HNSW index matches (they index embedding::vector(384)):
        # the visible rows are fetched and sorted exactly. No MATERIALIZED copy of the rows: copying
        # 1.5 kB vectors cost more than the search (10 % of 100k chunks: 25 -> 9 ms).
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
        sql = f"""
            SELECT id, page_id, distance FROM (
                SELECT c.id, c.page_id, (c.embedding::vector({HNSW_DIMENSIONS})) <=> %s::vector({HNSW_DIMENSIONS})
                       AS distance
                FROM search_chunk c
                WHERE vector_dims(c.embedding) = {HNSW_DIMENSIONS} AND c.embedding_model = %s
                  AND {visible_sql} {filter_sql}
                ORDER BY distance LIMIT %s
            ) hits WHERE distance <= %s ORDER BY distance, id
        """  # noqa: S608
        # The floor tests the walk's output: the walk yields chunks nearest first, so the chunks within
        # the floor are the same as if the test ran inside it (where it would stop iterative scans late).
        params = [literal, model, *visible_params, *filter_params, depth, max_distance]
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
    return [
        ChunkHit(chunk_id=r[0], page_id=r[1], vector_rank=i + 1, vector_distance=float(r[2]))
        for i, r in enumerate(rows)
    ]


def exact_vector_lists(
    vector: list[float],
    centred: Any,
    model: str,
    visible: VisiblePages,
    filters: Filters,
    depth: int = LEG_DEPTH,
    floor: Floor = NO_FLOOR,
) -> tuple[list[ChunkHit], dict[str, list[ChunkHit]]]:
    """The exact vector leg and each language partition's exact centred list, from one scan.

    Exact search reads every visible row, and reading rows is what costs (at 10 % of 100k
    chunks: ~20 ms a scan), so the plain and the language-centred distances are computed
    in one pass (kept: ids and two distances, not the vectors) instead of one scan for the
    plain leg and one per language. Same results
    as ``vector_leg(exact=True)`` and ``crosslang_leg(exact=True)`` (tested). The plain list keeps the
    chunks within ``floor.plain``; the centred lists are cut by ``merge_partitions``.
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
        _vector_literal(vector),
        _vector_literal(centred.unit),
        *visible_params,
        model,
        *filter_params,
        floor.plain_distance,
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


# --- fusion ----------------------------------------------------------------------


# RRF weight of each list. With the cross-language list present, the plain
# vector list counts a little less: it is biased to the question's language
# (weights measured on dev-crosslang; see search/crosslang.py).
WEIGHTS = {"keyword": 1.0, "vector": 1.0, "translated": 1.0}
WEIGHTS_CROSSLANG = {"keyword": 1.0, "vector": 0.7, "crosslang": 1.0, "translated": 1.0}


def _rrf(weights: dict[str, float], leg: str, rank: int | None, k: int) -> float:
    return weights.get(leg, 0.0) / (k + rank) if rank is not None else 0.0


# The plain vector list is pulled toward the question's language. When the language-centred list
# says the answer is in another language, that pull only pushes wrong pages up, so the plain list
# sits out. Short questions are left alone: their detected language is unreliable.
ELSEWHERE_TOP = 10
ELSEWHERE_SHARE = 0.8
ELSEWHERE_MIN_WORDS = 4


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
) -> list[PageHit]:
    """Reciprocal rank fusion over chunks; a page scores as its best chunk."""
    weights = WEIGHTS_CROSSLANG if crosslang else WEIGHTS
    if vector_weight is not None:
        weights = {**weights, "vector": vector_weight}
    merged: dict[int, ChunkHit] = {}
    for hit in keyword:
        merged[hit.chunk_id] = ChunkHit(hit.chunk_id, hit.page_id, keyword_rank=hit.keyword_rank)
    for hit in vector:
        entry = merged.setdefault(hit.chunk_id, ChunkHit(hit.chunk_id, hit.page_id))
        entry.vector_rank, entry.vector_distance = hit.vector_rank, hit.vector_distance
    for hit in crosslang or []:
        merged.setdefault(hit.chunk_id, ChunkHit(hit.chunk_id, hit.page_id)).crosslang_rank = hit.crosslang_rank
    for rank, hit in enumerate(translated or [], start=1):
        merged.setdefault(hit.chunk_id, ChunkHit(hit.chunk_id, hit.page_id)).translated_rank = rank
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


def _query_vector(text: str, embedder: Any, timings: dict[str, float], owner: Any = None) -> list[float] | None:
    """The query embedding (cached per ``owner``), or None if the embedder failed."""
    t = time.perf_counter()
    try:
        embedding = query_embedding(text, embedder, owner)
    except Exception as exc:  # provider down: keyword results still answer
        logger.warning("query embedding failed, keyword results only: %s", exc)
        embedding = None
    timings["embed"] = time.perf_counter() - t
    return embedding


def _timed(name: str, leg: Any, *args: Any, **kwargs: Any) -> Callable[[], tuple[str, Any, float]]:
    """``leg(*args, **kwargs)`` as a call that returns (name, result, seconds)."""

    def call() -> tuple[str, Any, float]:
        t = time.perf_counter()
        return name, leg(*args, **kwargs), time.perf_counter() - t

    return call


def translated_keyword_leg(
    parsed: ParsedQuery,
    query_language: str,
    visible: VisiblePages,
    filters: Filters,
    depth: int = LEG_DEPTH,
    embedder: Any = None,
    owner: Any = None,
    min_coverage: float | None = None,
) -> list[ChunkHit]:
    """The keyword leg over the query translated into each other handbook language (its pages only).

    The word translation draws on the words of pages this reader may read (``visible.reader``).
    """
    hits: list[ChunkHit] = []
    visible = as_visible(visible)
    translations = query_translations(parsed.raw, query_language, embedder, reader=visible.reader, owner=owner)
    for target, text in translations.items():
        if filters.language and filters.language != target:
            continue  # the user asked for another language's pages only
        partition = Filters(space=filters.space, language=target)
        hits += keyword_leg(
            parse_query(text), visible, partition, depth, cap=TRANSLATED_CANDIDATE_CAP, min_coverage=min_coverage
        )
    return hits


PARTITION_PREFIX = "crosslang:"  # timing/list names of the language-centred partitions' walks


def typo_corrected(parsed: ParsedQuery, reader: Reader, language: str | None = None) -> ParsedQuery:
    """``parsed`` with its misspelt words replaced by their correction from the words of the pages
    ``reader`` may read (``search/suggest.py``): "remboursment" matches the pages that say
    "remboursement". A misspelt word matches nothing, so nothing is lost by replacing it."""
    fixed = corrections(" ".join(parsed.terms), reader, language) if parsed.terms else {}
    if not fixed:
        return parsed
    terms = list(dict.fromkeys(fixed.get(t, t) for t in parsed.terms))
    return ParsedQuery(raw=parsed.raw, terms=terms, phrases=parsed.phrases, excluded=parsed.excluded)


def retrieve(
    text: str,
    user: Any,
    *,
    filters: Filters | None = None,
    use_vectors: bool = True,
    use_keywords: bool = True,
    cross_language: bool = True,
    depth: int = LEG_DEPTH,
) -> Retrieval:
    """The one query path: parse, run both legs over visible pages, fuse."""
    filters = filters or Filters()
    timings: dict[str, float] = {}
    started = time.perf_counter()
    parsed = parse_query(text)
    query_language = detect_language(parsed.raw) if parsed.raw else "en"
    timings["parse"] = time.perf_counter() - started
    if parsed.is_empty:
        return Retrieval(parsed, [], query_language, timings)
    # Phrases and exclusions are exact-match requests: meaning-based hits and translations would ignore them.
    exact_request = bool(parsed.phrases or parsed.excluded)
    translate = use_keywords and cross_language and not exact_request
    want_embedder = (use_vectors or translate) and not exact_request

    def query_side() -> tuple[Any, list[float] | None, Any]:
        """The serving embedder (read once: the vector lists and the word translation use it),
        the query vector and its language-centred form."""
        embedder = query_embedder() if want_embedder else None
        if not (use_vectors and embedder is not None):
            return embedder, None, None
        # Before the lists start: the model's threads and Postgres would fight over the same cores.
        embedding = _query_vector(parsed.raw, embedder, timings, getattr(user, "pk", None))
        centred = (
            centred_query(embedding, embedder.model_name, query_language, filters, reader)
            if embedding and cross_language
            else None
        )
        return embedder, embedding, centred

    # Whose statistics rank the results: the scopes this user may read (search/scopes.py).
    reader = reader_of(user)
    # Permissions: the ids of the pages this user may read, from the one SQL filter (visible_to),
    # read fresh on every query and applied inside every leg. The query side is prepared meanwhile.
    calls_first: list[Callable[[], Any]] = [partial(visible_pages, user, reader), query_side]
    if use_keywords:
        calls_first.append(partial(typo_corrected, parsed, reader, query_language))
    visible, (embedder, embedding, centred), *corrected = parallel.run_all(calls_first)
    # The keyword lists search the words as corrected; what was typed stays the query shown.
    words = corrected[0] if corrected else parsed
    model = embedder.model_name if embedder else ""
    # Vector hits count only when close enough in meaning (search/relevance.py): gibberish finds nothing.
    floor = similarity_floor(model) if model else NO_FLOOR
    exact = embedding is not None and (len(embedding) != HNSW_DIMENSIONS or use_exact_scan(visible))

    calls = []
    if use_keywords:
        calls.append(_timed("keyword", keyword_leg, words, visible, filters, depth))
    if embedding is not None and exact and centred is not None:
        # Exact search reads every visible row: both vector lists come from one scan (timed as "vector").
        args = (embedding, centred, model, visible, filters, depth, floor)
        calls.append(_timed("vectors", exact_vector_lists, *args))
    elif embedding is not None:
        args = (embedding, model, visible, filters, depth, exact)
        calls.append(_timed("vector", vector_leg, *args, max_distance=floor.plain_distance))
        # One call per language partition: each walks its own graph, side by side.
        for language in centred.sizes if centred is not None else ():
            args = (centred, language, model, visible, filters, depth, exact)
            calls.append(_timed(f"{PARTITION_PREFIX}{language}", partition_leg, *args))
    if translate:
        args = (parsed, query_language, visible, filters, depth, embedder, getattr(user, "pk", None))
        calls.append(_timed("translate", translated_keyword_leg, *args))
    # Independent lists over the same visible set: side by side when allowed (search/parallel.py).
    lists: dict[str, Any] = {}
    for name, hits, seconds in parallel.run_all(calls):
        lists[name], timings[name] = hits, seconds
    # The language-centred list, merged from its partitions: those of the one-scan exact lists (the
    # scan is timed as the vector leg) or those walked side by side (timed as the slowest walk).
    per_language: dict[str, list[ChunkHit]] | None = None
    walked = 0.0
    if "vectors" in lists:
        lists["vector"], per_language = lists.pop("vectors")
        timings["vector"] = timings.pop("vectors")
    for name in [name for name in lists if name.startswith(PARTITION_PREFIX)]:
        per_language = per_language or {}
        per_language[name.removeprefix(PARTITION_PREFIX)] = lists.pop(name)
        walked = max(walked, timings.pop(name))
    if per_language is not None:
        t = time.perf_counter()
        lists["crosslang"] = merge_partitions(per_language, centred, depth, floor.centred)
        timings["crosslang"] = walked + time.perf_counter() - t
    keyword, vector = lists.get("keyword", []), lists.get("vector", [])
    crosslang, translated = lists.get("crosslang", []), lists.get("translate", [])
    confident = bool(vector) and 1.0 - (vector[0].vector_distance or 0.0) >= floor.confident
    if embedding is not None and floor.confident > -1.0 and not confident:
        # Nothing is clearly close in meaning: the words must carry the match, each listed chunk
        # holding most of the query's words, or one common word of an unrelated question ("temps"
        # in "temps de cuisson d'un gigot") would be a match. With no such chunk, nothing matches.
        # The lists are asked again with that requirement, so they are ranked and cut with it.
        t = time.perf_counter()
        if keyword:
            keyword = keyword_leg(words, visible, filters, depth, min_coverage=KEYWORD_ALONE_COVERAGE)
        if translated:
            args = (parsed, query_language, visible, filters, depth, embedder, getattr(user, "pk", None))
            translated = translated_keyword_leg(*args, min_coverage=KEYWORD_ALONE_COVERAGE)
        if not keyword and not translated:
            vector, crosslang = [], []
        timings["words alone"] = time.perf_counter() - t

    t = time.perf_counter()
    vector_weight = 0.0 if answer_elsewhere(crosslang, query_language, parsed.raw) else None
    pages = fuse(keyword, vector, crosslang=crosslang, translated=translated, vector_weight=vector_weight)
    timings["fusion"] = time.perf_counter() - t
    timings["total"] = time.perf_counter() - started
    return Retrieval(
        parsed, pages, query_language, timings, used_vectors=bool(vector), query_vector=embedding, embedder=embedder
    )
