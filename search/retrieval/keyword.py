"""The keyword lists: IDF-scored full-text matches, in the query's words and translated."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from config.numbers import (
    KEYWORD_CANDIDATE_CAP,
    KEYWORD_MIN_COVERAGE,
    KEYWORD_TITLE_BONUS,
    LEG_DEPTH,
    PAGES_WAY_IN_MAX_CHUNKS,
    PAGES_WAY_IN_MAX_SHARE,
    TRANSLATED_CANDIDATE_CAP,
)
from config.numbers import KEYWORD_RERANK_DEPTH as RERANK_DEPTH
from core.db_router import read_connection
from core.languages import ALL_STOPWORDS
from search.retrieval.hits import ChunkHit, Filters
from search.retrieval.query import ParsedQuery, parse_query, tsquery_text
from search.retrieval.query_translation import query_translations
from search.retrieval.suggest import corrections
from search.retrieval.visibility import VisiblePages
from search.statistics.scopes import Reader
from search.statistics.term_statistics import CONFIGS, term_weights


def _language_clause(language: str) -> str:
    if language == "other":
        return "c.language NOT IN (" + ", ".join(f"'{code}'" for code in CONFIGS) + ")"
    return f"c.language = '{language}'"


def _candidate_terms(terms: list[Any], cap: int) -> list[Any]:
    """The rarest words whose matches fit in the candidate cap together (at least one word).

    Past the cap the scan keeps whichever rows it meets first (physical order): a complete set
    of the chunks holding the rarest words beats an arbitrary sample of everything: as good as no
    cap and faster than a larger cap of any selective word (bench.search, quality and scale).
    """
    chosen: list[Any] = []
    total = 0
    for term in sorted(terms, key=lambda t: (t.ndoc, t.term)):
        if chosen and total + term.ndoc > cap:
            break
        chosen.append(term)
        total += term.ndoc
    return chosen


def pages_way_in(visible: VisiblePages) -> bool:
    chunks, share = visible.estimate
    return share <= PAGES_WAY_IN_MAX_SHARE and chunks <= PAGES_WAY_IN_MAX_CHUNKS


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
    least = KEYWORD_MIN_COVERAGE if min_coverage is None else min_coverage
    return keyword_lists(parsed, visible, filters, depth, cap, (least,))[least]


def keyword_lists(
    parsed: ParsedQuery,
    visible: VisiblePages | list[int],
    filters: Filters,
    depth: int = LEG_DEPTH,
    cap: int | None = None,
    coverages: Sequence[float] = (KEYWORD_MIN_COVERAGE,),
) -> dict[float, list[ChunkHit]]:
    """The keyword list asked with each of ``coverages`` as its ``min_coverage`` (``keyword_leg``),
    all from one statement: the matches are found and scored once, and each list is ranked and cut
    among the ones holding its share. So a search that may later need a stricter list (the words
    alone must carry the match) has it without asking the database again."""
    coverages = tuple(dict.fromkeys(coverages))
    lists: dict[float, list[ChunkHit]] = {least: [] for least in coverages}
    if parsed.is_empty or not coverages:
        return lists
    visible = visible if isinstance(visible, VisiblePages) else VisiblePages(visible)  # ids as tests give them
    if not visible:
        return lists
    partitions = _scored_partitions(parsed, visible, filters, KEYWORD_CANDIDATE_CAP if cap is None else cap)
    if not partitions:
        return lists
    words = tsquery_text(ParsedQuery(raw=parsed.raw, terms=parsed.positive_words))
    if len(coverages) == 1:
        sql, params = _one_list(partitions, coverages[0], depth, words)
    else:
        sql, params = _several_lists(partitions, coverages, depth, words)
    with read_connection().cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    if len(coverages) == 1:
        lists[coverages[0]] = [
            ChunkHit(chunk_id=r[0], page_id=r[1], keyword_rank=i + 1, coverage=float(r[2])) for i, r in enumerate(rows)
        ]
        return lists
    for i, least in enumerate(coverages):
        ranked = sorted((r[3 + i], r) for r in rows if r[3 + i] is not None and r[3 + i] <= depth)
        lists[least] = [
            ChunkHit(chunk_id=r[0], page_id=r[1], keyword_rank=rank, coverage=float(r[2])) for rank, r in ranked
        ]
    return lists


# One partition of the matches (a language config): the SQL scoring its candidates, its config, its parameters.
Partition = tuple[str, str, list[Any]]


def _scored_partitions(parsed: ParsedQuery, visible: VisiblePages, filters: Filters, cap: int) -> list[Partition]:
    """Per language config, the statement that finds the candidates (visible pages only, before any
    ranking or LIMIT) and gives each its score and coverage."""
    # A stop-word of any handbook language ("de", "le", "que") is rare in the other language's
    # partition and would get a high IDF there, pulling in pages of the wrong language.
    content_terms = [t for t in parsed.terms if t not in ALL_STOPWORDS] or parsed.terms
    weights = term_weights(content_terms, visible.reader)
    filter_sql, filter_params = filters.sql()
    if pages_way_in(visible):
        # A small part of the index readable: the readable pages' chunks (page_id index) and the
        # words' matches (full-text index) are intersected before any row is read. Through the
        # full-text index alone the scan reads every match, readable or not, to find these few
        # (a reader of one small space: bench.search scale times it).
        visible_sql, visible_params = visible.clause("c.page_id", index=True)
    else:
        # "+ 0": the page_id index must not replace the full-text index as the way in.
        visible_sql, visible_params = visible.clause("(c.page_id + 0)")
    partitions: list[Partition] = []
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
        # Each term is tested once per candidate (flags m<i>: anywhere, t<i>: title or headings), and
        # score and coverage are float sums over the flags: the OFFSET 0 keeps Postgres from pasting
        # the tests into both sums, and float8 keeps the arithmetic off numeric.
        flags = ", ".join(
            f"(c.search_vector @@ to_tsquery('{config}', %s))::int AS m{i},"
            f" (c.search_vector @@ to_tsquery('{config}', %s))::int AS t{i}"
            for i in range(len(terms))
        )
        flag_params: list[Any] = [x for t in terms for x in (t.term, t.term + ":AB")]
        score = (
            " + ".join(f"{t.idf:.6f}::float8 * (m{i} + {KEYWORD_TITLE_BONUS} * t{i})" for i, t in enumerate(terms))
            or "1.0"
        )
        # The share of the query words' IDF the chunk holds (1 for a phrase-only query). Written in full:
        # shares rounded to a few decimals may sum to less than 1 for a chunk holding every word.
        total = sum(t.idf for t in terms)
        held = [f"{t.idf / total!r}::float8 * m{i}" for i, t in enumerate(terms)] if total > 0 else []
        coverage = " + ".join(held) or "1.0"
        scored = f"""SELECT f.id, f.page_id, f.search_vector, {score} AS score, {coverage} AS coverage FROM (
                        SELECT c.id, c.page_id, c.search_vector{", " + flags if flags else ""}
                        FROM (SELECT c.id, c.page_id, c.search_vector || ''::tsvector AS search_vector
                              FROM search_chunk c
                              WHERE {_language_clause(language)} AND {visible_sql}
                                AND c.search_vector @@ to_tsquery('{config}', %s) {filter_sql}
                              LIMIT %s) c
                        OFFSET 0) f"""
        params = [*flag_params, *visible_params, tsquery_text(candidate), *filter_params, cap]
        partitions.append((scored, config, params))
    return partitions


# The shares are floats: a chunk holding every word passes 1.0.
def _at_least(share: float) -> float:
    return share - 1e-9


def _one_list(partitions: list[Partition], least: float, depth: int, words: str) -> tuple[str, list[Any]]:
    """One list: per partition the RERANK_DEPTH best holding ``least``, then ranked and cut at ``depth``."""
    selects: list[str] = []
    params: list[Any] = []
    for scored, config, scored_params in partitions:
        selects.append(
            f"""(SELECT id, page_id, search_vector, '{config}'::regconfig AS cfg, score, coverage FROM (
                    {scored}
                 ) scored WHERE coverage >= %s ORDER BY score DESC, id LIMIT %s)"""
        )
        params += [*scored_params, _at_least(least), RERANK_DEPTH]
    # ts_rank (term frequency) only breaks ties of score, and it reads every row it ranks: a row below
    # the depth-th best score cannot reach the list, so it is not ranked.
    sql = f"""
        WITH hits AS MATERIALIZED ({" UNION ALL ".join(selects)}),
        cut AS (SELECT score FROM hits ORDER BY score DESC OFFSET %s LIMIT 1)
        SELECT id, page_id, coverage FROM hits
        ORDER BY score DESC, CASE WHEN score >= COALESCE((SELECT score FROM cut), 0)
                 THEN ts_rank(search_vector, to_tsquery(cfg, %s), 1) ELSE 0 END DESC, id
        LIMIT %s
    """  # noqa: S608 - composed from our own SQL; every value is a parameter
    return sql, [*params, max(depth - 1, 0), words, depth]


def _several_lists(
    partitions: list[Partition], coverages: Sequence[float], depth: int, words: str
) -> tuple[str, list[Any]]:
    """Every list of ``coverages`` at once, each ranked as ``_one_list`` ranks it alone.

    Per partition, a row is in list k (in<k>) when it holds that list's share and is among the
    RERANK_DEPTH best that do (a running count over the partition's matches, best first). Each list
    has its own cut (the depth-th best score among its rows), so whether ts_rank breaks a row's ties
    depends on the list: ts_rank is read once per row, where any list needs it (``tied`` is
    materialized, or the planner would paste the ts_rank into each list's ranking). A row comes back
    with its rank in each list it reaches (rank<k>, NULL elsewhere)."""
    levels = range(len(coverages))
    running = "count(*) FILTER (WHERE coverage >= %s) OVER (ORDER BY score DESC, id)"
    selects: list[str] = []
    params: list[Any] = []
    for scored, config, scored_params in partitions:
        inside = ", ".join(f"coverage >= %s AND {running} <= %s AS in{k}" for k in levels)
        selects.append(
            f"""(SELECT * FROM (
                    SELECT id, page_id, search_vector, '{config}'::regconfig AS cfg, score, coverage, {inside}
                    FROM ({scored} OFFSET 0) scored
                 ) ranked WHERE {" OR ".join(f"in{k}" for k in levels)})"""
        )
        for least in coverages:
            params += [_at_least(least), _at_least(least), RERANK_DEPTH]
        params += scored_params
    cuts = ", ".join(
        f"cut{k} AS (SELECT score FROM hits WHERE in{k} ORDER BY score DESC OFFSET %s LIMIT 1)" for k in levels
    )
    near = ", ".join(f"in{k} AND score >= COALESCE((SELECT score FROM cut{k}), 0) AS near{k}" for k in levels)
    ranks = ", ".join(
        f"CASE WHEN in{k} THEN row_number() OVER (PARTITION BY in{k}"
        f" ORDER BY score DESC, CASE WHEN near{k} THEN tie ELSE 0 END DESC, id) END AS rank{k}"
        for k in levels
    )
    sql = f"""
        WITH hits AS MATERIALIZED ({" UNION ALL ".join(selects)}),
        {cuts},
        tied AS MATERIALIZED (
            SELECT id, page_id, coverage, score, {", ".join(f"in{k}, near{k}" for k in levels)},
                CASE WHEN {" OR ".join(f"near{k}" for k in levels)}
                THEN ts_rank(search_vector, to_tsquery(cfg, %s), 1) ELSE 0 END AS tie
            FROM (SELECT *, {near} FROM hits OFFSET 0) neared),
        ranked AS (SELECT id, page_id, coverage, {ranks} FROM tied)
        SELECT id, page_id, coverage, {", ".join(f"rank{k}" for k in levels)} FROM ranked
        WHERE {" OR ".join(f"rank{k} <= %s" for k in levels)}
    """  # noqa: S608 - composed from our own SQL; every value is a parameter
    return sql, [*params, *(max(depth - 1, 0) for _ in levels), words, *(depth for _ in levels)]


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
    least = KEYWORD_MIN_COVERAGE if min_coverage is None else min_coverage
    visible = visible if isinstance(visible, VisiblePages) else VisiblePages(visible)  # ids as tests give them
    translations = query_translations(parsed.raw, query_language, embedder, reader=visible.reader, owner=owner)
    return translated_keyword_lists(parsed, translations, visible, filters, depth, (least,))[least]


def translated_keyword_lists(
    parsed: ParsedQuery,
    translations: Mapping[str, str],
    visible: VisiblePages | list[int],
    filters: Filters,
    depth: int = LEG_DEPTH,
    coverages: Sequence[float] = (KEYWORD_MIN_COVERAGE,),
) -> dict[float, list[ChunkHit]]:
    """``translated_keyword_leg`` asked with each of ``coverages`` over the query's ``translations``
    ({language: text}), one statement per target language."""
    lists: dict[float, list[ChunkHit]] = {least: [] for least in coverages}
    visible = visible if isinstance(visible, VisiblePages) else VisiblePages(visible)  # ids as tests give them
    for target, text in translations.items():
        if filters.language and filters.language != target:
            continue  # the user asked for another language's pages only
        partition = Filters(space=filters.space, language=target)
        translated = parse_query(text)
        # Coverage counts the words asked, not the translated ones: a word with no translation is
        # missing from every page in that language ("capital of australia" -> "capitale" alone must not
        # hold all of the question). ``share`` turns one into the other.
        share = min(1.0, len(translated.terms) / max(1, len(parsed.terms)))
        if not share:
            continue
        # Too few of the words have a translation for any page to hold more than all of them.
        asked = {least: least / share for least in lists if least / share <= 1.0}
        if not asked:
            continue
        found = keyword_lists(translated, visible, partition, depth, TRANSLATED_CANDIDATE_CAP, tuple(asked.values()))
        for least, held in asked.items():
            for hit in found[held]:
                lists[least].append(replace(hit, coverage=hit.coverage * share if hit.coverage is not None else None))
    return lists


def typo_corrected(
    parsed: ParsedQuery, reader: Reader, language: str | None = None, embedder: Any = None
) -> ParsedQuery:
    """``parsed`` with its misspelt words replaced by their correction from the words of the pages
    ``reader`` may read (``search/retrieval/suggest.py``): "remboursment" matches the pages that say
    "remboursement". A misspelt word matches nothing, so nothing is lost by replacing it. ``embedder``:
    the serving model the search resolved (the vocabulary is that model's), or None to resolve it."""
    fixed = corrections(" ".join(parsed.terms), reader, language, embedder) if parsed.terms else {}
    if not fixed:
        return parsed
    terms = list(dict.fromkeys(fixed.get(t, t) for t in parsed.terms))
    return ParsedQuery(raw=parsed.raw, terms=terms, phrases=parsed.phrases, excluded=parsed.excluded)
