"""Hybrid retrieval: keyword leg + vector leg, fused by reciprocal rank fusion.

One query path for everything (views, CLI, Ask). Both legs start from the
pages the user may read, as SQL inside the same statement, so permission
filtering happens before ranking and ``LIMIT``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from core import languages
from core.text import detect_language
from search.decisions.policy import Decision
from search.decisions.query import (
    SAFE,
    STAND_OUT_RANK,
    QueryDecision,
    QueryFeatures,
    decide_query,
    query_decision,
    stand_out,
    vector_floors,
)
from search.embedding.model_switch import query_embedder
from search.embedding.sentence_sets import EVERYDAY, HANDBOOK_QUESTIONS, OTHER_QUERIES, WORKPLACE
from search.retrieval import parallel
from search.retrieval.crosslang import centred_query, merge_partitions, partition_leg
from search.retrieval.fusion import answer_elsewhere, found_by_words, fuse, without_weak_word_matches
from search.retrieval.hits import LEG_DEPTH, ChunkHit, Filters, Retrieval
from search.retrieval.keyword import KEYWORD_ALONE_COVERAGE, keyword_leg, translated_keyword_leg, typo_corrected
from search.retrieval.query import parse_query
from search.retrieval.query_embedding import query_embedding
from search.retrieval.relevance import shares_words, unheld_words
from search.retrieval.vector import (
    HNSW_DIMENSIONS,
    exact_vector_lists,
    use_exact_scan,
    vector_leg,
    walk_with_native_partition,
)
from search.retrieval.visibility import visible_pages
from search.statistics.scopes import reader_of

logger = logging.getLogger(__name__)


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


PARTITION_PREFIX = "crosslang:"  # timing/list names of the language-centred partitions' walks


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
    query_language = detect_language(parsed.raw) if parsed.raw else languages.DEFAULT.code
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

    # Whose statistics rank the results: the scopes this user may read (search/statistics/scopes.py).
    reader = reader_of(user)
    # Permissions: the ids of the pages this user may read, from the one SQL filter (visible_to),
    # current for every query (reused only while the scopes it covers are unchanged: visibility.py) and
    # applied inside every leg. The query side is prepared meanwhile.
    calls_first: list[Callable[[], Any]] = [partial(visible_pages, user, reader), query_side]
    if use_keywords:
        calls_first.append(partial(typo_corrected, parsed, reader, query_language))
    visible, (embedder, embedding, centred), *corrected = parallel.run_all(calls_first)
    # The keyword lists search the words as corrected; what was typed stays the query shown.
    words = corrected[0] if corrected else parsed
    model = embedder.model_name if embedder else ""
    # Vector hits count only when close enough in meaning (search/decisions/query.py, fitted per model).
    policy = query_decision(model) if model else None
    vector_floor, centred_floor = vector_floors(policy)
    exact = embedding is not None and (len(embedding) != HNSW_DIMENSIONS or use_exact_scan(visible))

    calls = []
    if use_keywords:
        calls.append(_timed("keyword", keyword_leg, words, visible, filters, depth))
    if embedding is not None and exact and centred is not None:
        # Exact search reads every visible row: both vector lists come from one scan (timed as "vector").
        args: tuple[Any, ...] = (embedding, centred, model, visible, filters, depth, vector_floor)
        calls.append(_timed("vectors", exact_vector_lists, *args))
    elif embedding is not None:
        # The query language's centred list comes from the plain walk's own rows (one walk fewer).
        native = query_language if centred is not None and query_language in centred.sizes else None
        if native:
            args = (embedding, centred, native, model, visible, filters, depth)
            calls.append(_timed("walk", walk_with_native_partition, *args, max_distance=1.0 - vector_floor))
        else:
            args = (embedding, model, visible, filters, depth, exact)
            calls.append(_timed("vector", vector_leg, *args, max_distance=1.0 - vector_floor))
        # One call per other language partition: each walks its own graph, side by side.
        for language in centred.sizes if centred is not None else ():
            if language != native:
                args = (centred, language, model, visible, filters, depth, exact)
                calls.append(_timed(f"{PARTITION_PREFIX}{language}", partition_leg, *args))
    if translate:
        args = (parsed, query_language, visible, filters, depth, embedder, getattr(user, "pk", None))
        calls.append(_timed("translate", translated_keyword_leg, *args))
    # Independent lists over the same visible set: side by side when allowed (search/retrieval/parallel.py).
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
    if "walk" in lists:  # the plain walk and, from its rows, the query language's partition
        lists["vector"], native_hits = lists.pop("walk")
        per_language = {query_language: native_hits}
        timings["vector"] = walked = timings.pop("walk")
    for name in [name for name in lists if name.startswith(PARTITION_PREFIX)]:
        per_language = per_language or {}
        per_language[name.removeprefix(PARTITION_PREFIX)] = lists.pop(name)
        walked = max(walked, timings.pop(name))
    if per_language is not None:
        t = time.perf_counter()
        lists["crosslang"] = merge_partitions(per_language, centred, depth, centred_floor)
        timings["crosslang"] = walked + time.perf_counter() - t
    keyword, vector = lists.get("keyword", []), lists.get("vector", [])
    crosslang, translated = lists.get("crosslang", []), lists.get("translate", [])
    decision = _decide(
        policy, vector, embedding, embedder, keyword or translated, parsed, words, reader, query_language
    )
    alone = 1.0 if decision is not None and decision.clearly_off else KEYWORD_ALONE_COVERAGE
    words_carry = decision is not None and not decision.confident
    if words_carry:
        # Nothing is clearly close in meaning: the words must carry the match, each listed chunk
        # holding most of the query's words, or one common word of an unrelated question ("temps"
        # in "temps de cuisson d'un gigot") would be a match. With no such chunk, nothing matches.
        # The lists are asked again with that requirement, so they are ranked and cut with it.
        t = time.perf_counter()
        if keyword:
            keyword = keyword_leg(words, visible, filters, depth, min_coverage=alone)
        if translated:
            args = (parsed, query_language, visible, filters, depth, embedder, getattr(user, "pk", None))
            translated = translated_keyword_leg(*args, min_coverage=alone)
        if not keyword and not translated:
            vector, crosslang = [], []
        timings["words alone"] = time.perf_counter() - t

    t = time.perf_counter()
    vector_weight = 0.0 if answer_elsewhere(crosslang, query_language, parsed.raw) else None
    pages = fuse(keyword, vector, crosslang=crosslang, translated=translated, vector_weight=vector_weight)
    if words_carry:
        # The meaning lists still rank, but only pages the words matched are results: a page merely
        # near in meaning to a query that means nothing here is not one ("how to jump start a car").
        pages = found_by_words(pages)
    elif vector or crosslang:
        pages = without_weak_word_matches(pages, KEYWORD_ALONE_COVERAGE)
    timings["fusion"] = time.perf_counter() - t
    timings["total"] = time.perf_counter() - started
    return Retrieval(
        parsed,
        pages,
        query_language,
        timings,
        used_vectors=bool(vector),
        query_vector=embedding,
        embedder=embedder,
        decision=decision,
    )


def _decide(  # noqa: PLR0913 - the lists and what the features are read from
    policy: Decision | None,
    vector: list[ChunkHit],
    embedding: list[float] | None,
    embedder: Any,
    found_words: list[ChunkHit],
    parsed: Any,
    words: Any,
    reader: Any,
    query_language: str,
) -> QueryDecision | None:
    """Whether the query means something here (search/decisions/query.py); None when it was not
    embedded (keyword search only: the words decide, as they always did)."""
    if embedding is None or embedder is None:
        return None
    if not vector:  # nothing above the floor: nothing is near in meaning
        return SAFE
    similarities = [1.0 - (hit.vector_distance or 0.0) for hit in vector[:STAND_OUT_RANK]]
    features = QueryFeatures(
        nearest=similarities[0],
        stand_out=stand_out(similarities, vector_floors(policy)[0]),
        workplace=WORKPLACE.nearest(embedding, embedder),
        everyday=EVERYDAY.nearest(embedding, embedder),
        handbook_question=HANDBOOK_QUESTIONS.nearest(embedding, embedder),
        other_query=OTHER_QUERIES.nearest(embedding, embedder),
        words=shares_words(parsed.terms, bool(found_words)),
    )
    return decide_query(features, policy, unheld=lambda: bool(unheld_words(words.terms, reader, query_language)))
