"""Hybrid retrieval: keyword leg + vector leg, fused by reciprocal rank fusion.

One query path for everything (views, CLI, Ask). Both legs start from the
pages the user may read, as SQL inside the same statement, so permission
filtering happens before ranking and ``LIMIT``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from config.numbers import KEYWORD_ALONE_COVERAGE, KEYWORD_MIN_COVERAGE, LEG_DEPTH, STAND_OUT_RANK
from core import languages
from core.text import detect_language
from search.decisions.policy import Decision, policy_for
from search.decisions.query import (
    PAGE,
    QUERY,
    SAFE,
    QueryDecision,
    QueryFeatures,
    decide_query,
    stand_out,
    vector_floors,
)
from search.decisions.retrieval import retrieval_weights
from search.embedding.model_switch import query_embedder
from search.embedding.sentence_sets import nearest_of_each
from search.retrieval import parallel
from search.retrieval.crosslang import CentredQuery, centred_query, merge_partitions, partition_leg
from search.retrieval.fusion import found_by_words, fuse, without_weak_word_matches
from search.retrieval.hits import ChunkHit, Filters, PageHit, Retrieval
from search.retrieval.keyword import keyword_lists, translated_keyword_lists, typo_corrected
from search.retrieval.query import ParsedQuery, parse_query
from search.retrieval.query_embedding import query_embedding
from search.retrieval.query_translation import query_translations
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

# The shares of the query's words a keyword hit may have to hold once the words alone must carry the
# match: most of them, or every one when the query is clearly on another subject.
WORDS_ALONE = (KEYWORD_ALONE_COVERAGE, 1.0)


@dataclass(frozen=True)
class QuerySide:
    """What the query is in meaning: the serving embedder (read once: the vector lists and the word
    translation use it), the query vector and its language-centred form (each None when not used)."""

    embedder: Any = None
    embedding: list[float] | None = None
    centred: CentredQuery | None = None

    @property
    def model(self) -> str:
        return self.embedder.model_name if self.embedder else ""


@dataclass(frozen=True)
class ListInput:
    """What every list of one query reads: the same query, visible set, filters and depth."""

    parsed: ParsedQuery
    words: ParsedQuery  # the typed words, typos corrected: what the keyword lists search
    language: str
    visible: Any  # VisiblePages
    filters: Filters
    depth: int
    side: QuerySide
    vector_floor: float
    centred_floor: float
    exact: bool  # the vector lists scan every visible row instead of walking the graph
    owner: Any  # whose cached translations and vectors these are
    # The shares of the words the keyword lists are also asked for (WORDS_ALONE where the decision may
    # leave the words alone to carry the match, else none): asked in the same statement as the lists.
    alone: tuple[float, ...] = ()


@dataclass
class Lists:
    """The lists of one query, each run once over the same visible set, best first."""

    keyword: list[ChunkHit] = field(default_factory=list)
    vector: list[ChunkHit] = field(default_factory=list)
    # The language-centred list's partitions, by chunk language, as the walks or the scan return them.
    vector_by_language: dict[str, list[ChunkHit]] | None = None
    crosslang: list[ChunkHit] = field(default_factory=list)  # the partitions merged
    translated: list[ChunkHit] = field(default_factory=list)
    # The keyword lists as asked with each share of ``ListInput.alone`` (from the same statements).
    keyword_alone: dict[float, list[ChunkHit]] = field(default_factory=dict)
    translated_alone: dict[float, list[ChunkHit]] = field(default_factory=dict)
    # The query in each other language as the translated list searched it (None: not translated).
    translations: dict[str, str] | None = None

    @property
    def found_by_words(self) -> bool:
        return bool(self.keyword or self.translated)


def _query_side(
    parsed: ParsedQuery,
    language: str,
    filters: Filters,
    reader: Any,
    owner: Any,
    *,
    embedder: Any,
    use_vectors: bool,
    cross_language: bool,
    centring: float,
    timings: dict[str, float],
) -> QuerySide:
    if not (use_vectors and embedder is not None):
        return QuerySide(embedder)
    # Before the lists start: the model's threads and Postgres would fight over the same cores.
    t = time.perf_counter()
    try:
        embedding = query_embedding(parsed.raw, embedder, owner)
    except Exception as exc:  # provider down: keyword results still answer
        logger.warning("query embedding failed, keyword results only: %s", exc)
        embedding = None
    timings["embed"] = time.perf_counter() - t
    centred = (
        centred_query(embedding, embedder.model_name, language, filters, reader, centring=centring)
        if embedding and cross_language
        else None
    )
    return QuerySide(embedder, embedding, centred)


def retrieve(
    text: str | ParsedQuery,
    user: Any,
    *,
    filters: Filters | None = None,
    use_vectors: bool = True,
    use_keywords: bool = True,
    cross_language: bool = True,
    depth: int = LEG_DEPTH,
    language: str | None = None,
) -> Retrieval:
    """The one query path: parse (unless given parsed), run the lists over visible pages, decide
    whether the query means something here, fuse. ``language``: the query's, when its caller has
    detected it already (Ask)."""
    filters = filters or Filters()
    timings: dict[str, float] = {}
    started = time.perf_counter()
    parsed = text if isinstance(text, ParsedQuery) else parse_query(text)
    if language is None:
        language = detect_language(parsed.raw) if parsed.raw else languages.DEFAULT.code
    timings["parse"] = time.perf_counter() - started
    if parsed.is_empty:
        return Retrieval(parsed, [], language, timings)
    # Phrases and exclusions are exact-match requests: meaning-based hits and translations would ignore them.
    exact_request = bool(parsed.phrases or parsed.excluded)
    translate = use_keywords and cross_language and not exact_request
    owner = getattr(user, "pk", None)
    # Whose statistics rank the results: the scopes this user may read (search/statistics/scopes.py).
    reader = reader_of(user)
    embed = (use_vectors or translate) and not exact_request
    # The serving model, resolved once (a read of the index settings): the query side embeds with it
    # and the typo correction's vocabulary is its.
    embedder = query_embedder() if embed or use_keywords else None
    model = embedder.model_name if embed and embedder is not None else ""
    # The model's policy, read once: how its meaning lists are formed and fused, the query decision,
    # the page decision for the close results (search/retrieval/confidence.py) on the Retrieval.
    policies = policy_for(model) if model else None
    weights = retrieval_weights(policies)
    # Permissions: the ids of the pages this user may read, from the one SQL filter (visible_to),
    # current for every query (reused only while the scopes it covers are unchanged: visibility.py) and
    # applied inside every list. The query side and the typo correction are prepared meanwhile.
    side_timings: dict[str, float] = {}
    first: list[Callable[[], Any]] = [
        partial(visible_pages, user, reader),
        partial(
            _query_side,
            parsed,
            language,
            filters,
            reader,
            owner,
            embedder=embedder if embed else None,
            use_vectors=use_vectors,
            cross_language=cross_language,
            centring=weights.centring,
            timings=side_timings,
        ),
    ]
    if use_keywords:
        # The keyword lists search the words as corrected; what was typed stays the query shown.
        first.append(partial(typo_corrected, parsed, reader, language, embedder))
    visible, query_side, *corrected = parallel.run_all(first)
    timings.update(side_timings)
    words = corrected[0] if corrected else parsed
    # Vector hits count only when close enough in meaning (search/decisions/query.py, fitted per model).
    policy = policies.decisions.get(QUERY) if policies else None
    vector_floor, centred_floor = vector_floors(policy)
    embedding = query_side.embedding
    exact = embedding is not None and (len(embedding) != HNSW_DIMENSIONS or use_exact_scan(visible))
    # A decision is made only for an embedded query, and only a policy leaves the words alone to carry it.
    alone = WORDS_ALONE if embedding is not None and policy is not None else ()
    given = ListInput(
        parsed, words, language, visible, filters, depth, query_side, vector_floor, centred_floor, exact, owner, alone
    )
    lists = _run_lists(given, use_keywords=use_keywords, translate=translate, timings=timings)
    decision = _decide(policy, lists, given, reader)
    words_carry = decision is not None and not decision.confident
    if words_carry and policy is not None:
        # Nothing is clearly close in meaning: the words must carry the match, each listed chunk
        # holding most of the query's words, or one common word of an unrelated question ("temps"
        # in "temps de cuisson d'un gigot") would be a match. With no such chunk, nothing matches.
        # Without a policy (a new model before its first calibration) there is no fitted decision to
        # set such a question apart from a real one: every keyword hit stays a result, as in keyword
        # search alone, and no narrowing makes search stricter than that.
        t = time.perf_counter()
        least = WORDS_ALONE[-1] if decision is not None and decision.clearly_off else WORDS_ALONE[0]
        lists = _words_alone(lists, least)
        timings["words alone"] = time.perf_counter() - t
    t = time.perf_counter()
    pages = _fused(lists, words_carry=words_carry, crosslang_vector_weight=weights.vector_weight)
    timings["fusion"] = time.perf_counter() - t
    timings["total"] = time.perf_counter() - started
    return Retrieval(
        parsed,
        pages,
        language,
        timings,
        used_vectors=bool(lists.vector),
        query_vector=embedding,
        embedder=query_side.embedder,
        decision=decision,
        vector_floor=vector_floor,
        page_decision=policies.decisions.get(PAGE) if policies else None,
        reader=reader,
        translations=lists.translations,
    )


def _run_lists(given: ListInput, *, use_keywords: bool, translate: bool, timings: dict[str, float]) -> Lists:
    """Every list of the query, once, over the same visible set: side by side on their own
    connections when allowed (search/retrieval/parallel.py), else one after another."""
    side, g = given.side, given
    embedding, centred = side.embedding, side.centred
    calls: dict[str, Callable[[], Any]] = {}
    if use_keywords:
        calls["keyword"] = partial(_keyword_list, given)
    native = None
    if embedding is not None and g.exact and centred is not None:
        # Exact search reads every visible row: both vector lists come from one scan.
        calls["vector"] = partial(
            exact_vector_lists, embedding, centred, side.model, g.visible, g.filters, g.depth, g.vector_floor
        )
    elif embedding is not None and centred is not None and g.language in centred.sizes:
        # The query language's centred list comes from the plain walk's own rows (one walk fewer).
        native = g.language
        calls["vector"] = partial(
            walk_with_native_partition,
            embedding,
            centred,
            native,
            side.model,
            g.visible,
            g.filters,
            g.depth,
            max_distance=1.0 - g.vector_floor,
        )
    elif embedding is not None:
        calls["vector"] = partial(
            vector_leg, embedding, side.model, g.visible, g.filters, g.depth, g.exact, max_distance=1.0 - g.vector_floor
        )
    walked: list[str] = []
    if embedding is not None and not g.exact and centred is not None:
        walked = [code for code in centred.sizes if code != native]
        for code in walked:  # each other language partition walks its own graph
            calls[code] = partial(partition_leg, centred, code, side.model, g.visible, g.filters, g.depth, g.exact)
    if translate:
        calls["translate"] = partial(_translated_list, given)
    done = dict(zip(calls, parallel.run_all([partial(_timed, call) for call in calls.values()]), strict=True))
    lists = Lists()
    if "keyword" in done:
        found, timings["keyword"] = done["keyword"]
        lists.keyword, lists.keyword_alone = found[KEYWORD_MIN_COVERAGE], {least: found[least] for least in g.alone}
    walks: dict[str, float] = {}  # the language-centred list's walks: it waits for the slowest
    if "vector" in done:
        found, timings["vector"] = done["vector"]
        if embedding is not None and g.exact and centred is not None:
            lists.vector, lists.vector_by_language = found
        elif native is not None:
            lists.vector, native_hits = found
            lists.vector_by_language = {native: native_hits}
            walks[native] = timings["vector"]
        else:
            lists.vector = found
    for code in walked:
        hits, walks[code] = done[code]
        lists.vector_by_language = {**(lists.vector_by_language or {}), code: hits}
    if lists.vector_by_language is not None and centred is not None:
        t = time.perf_counter()
        lists.crosslang = merge_partitions(lists.vector_by_language, centred, g.depth, g.centred_floor)
        timings["crosslang"] = max(walks.values(), default=0.0) + time.perf_counter() - t
    if "translate" in done:
        (lists.translations, found), timings["translate"] = done["translate"]
        lists.translated, lists.translated_alone = (
            found[KEYWORD_MIN_COVERAGE],
            {least: found[least] for least in g.alone},
        )
    return lists


def _timed(call: Callable[[], Any]) -> tuple[Any, float]:
    t = time.perf_counter()
    return call(), time.perf_counter() - t


def _keyword_list(given: ListInput) -> dict[float, list[ChunkHit]]:
    coverages = (KEYWORD_MIN_COVERAGE, *given.alone)
    return keyword_lists(given.words, given.visible, given.filters, given.depth, coverages=coverages)


def _translated_list(given: ListInput) -> tuple[dict[str, str], dict[float, list[ChunkHit]]]:
    """The query's translations (from the words its reader may read) and the keyword lists over them."""
    g = given
    translations = query_translations(g.parsed.raw, g.language, g.side.embedder, reader=g.visible.reader, owner=g.owner)
    coverages = (KEYWORD_MIN_COVERAGE, *g.alone)
    return translations, translated_keyword_lists(g.parsed, translations, g.visible, g.filters, g.depth, coverages)


def _words_alone(lists: Lists, least: float) -> Lists:
    """The lists when the words must carry the match: the keyword lists keep the chunks that hold
    ``least`` of the query's words, as if asked with that requirement; with none, no list matches.

    Those lists came with the keyword lists, from the same statements (``keyword_lists``): after the
    decision nothing is asked of the database again, and the stricter list still reaches the chunks
    a list cut at its depth left out.
    """
    keyword = lists.keyword_alone[least] if lists.keyword else []
    translated = lists.translated_alone[least] if lists.translated else []
    if not keyword and not translated:
        return Lists(translations=lists.translations)
    return replace(lists, keyword=keyword, translated=translated, keyword_alone={}, translated_alone={})


def _fused(lists: Lists, *, words_carry: bool, crosslang_vector_weight: float) -> list[PageHit]:
    pages = fuse(
        lists.keyword,
        lists.vector,
        crosslang=lists.crosslang,
        translated=lists.translated,
        crosslang_vector_weight=crosslang_vector_weight,
    )
    if words_carry:
        # The meaning lists still rank, but only pages the words matched are results: a page merely
        # near in meaning to a query that means nothing here is not one ("how to jump start a car"),
        # nor, without a policy, one only an untrusted vector list found.
        return found_by_words(pages)
    if lists.vector or lists.crosslang:
        return without_weak_word_matches(pages, KEYWORD_ALONE_COVERAGE)
    return pages


def _decide(policy: Decision | None, lists: Lists, given: ListInput, reader: Any) -> QueryDecision | None:
    """Whether the query means something here (search/decisions/query.py); None when it was not
    embedded (keyword search only: the words decide, as they always did)."""
    embedding, embedder = given.side.embedding, given.side.embedder
    if embedding is None or embedder is None:
        return None
    if not lists.vector:  # nothing above the floor: nothing is near in meaning
        return SAFE
    similarities = [1.0 - (hit.vector_distance or 0.0) for hit in lists.vector[:STAND_OUT_RANK]]
    near = nearest_of_each(embedding, embedder)
    features = QueryFeatures(
        nearest=similarities[0],
        stand_out=stand_out(similarities, given.vector_floor),
        workplace=near.workplace,
        everyday=near.everyday,
        handbook_question=near.handbook_question,
        other_query=near.other_query,
        words=shares_words(given.parsed.terms, lists.found_by_words),
    )
    words, language = given.words, given.language
    return decide_query(features, policy, unheld=lambda: bool(unheld_words(words.terms, reader, language)))
