"""Inverse document frequency for the keyword leg.

``ts_rank`` has no notion of how rare a word is, so with OR semantics a common
word ("leave", "données") outranks the rare word that names the answer. The
keyword leg therefore scores a chunk as the sum of the IDF of the query
lexemes it contains (title/heading matches count extra), BM25-style, with
document frequencies from ``LexemeStat``, counted per readership scope and summed
over what the searching user may read (``search/statistics/scopes.py``): hidden pages never
move a reader's ranking.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from django.core.cache import cache
from django.db import connection, transaction

from config.numbers import BM25_IDF_SMOOTHING, SMALL_INDEX_CHUNKS
from config.numbers import STATISTICS_REFRESH_DEBOUNCE_S as REFRESH_DEBOUNCE_S
from core import languages
from core.db_router import read_connection
from search.statistics import stamps
from search.statistics.scopes import EVERYTHING, Reader, page_scope, scoped_chunks_sql

logger = logging.getLogger(__name__)

# Postgres text-search configuration of each chunk language; others use "simple".
CONFIGS = languages.TEXT_SEARCH_CONFIGS
SIMPLE = languages.OTHER_TEXT_SEARCH_CONFIG
# The (language, configuration) pairs of the IDF query, "other" for every language not listed.
_CONFIG_VALUES = ", ".join(f"('{code}', '{config}')" for code, config in {**CONFIGS, "other": SIMPLE}.items())


LEXEME_STAMPS = "lexemes"  # the name of these statistics' scope-stamp record (search/statistics/stamps.py)


def refresh_lexeme_stats(*, page_id: int | None = None, scopes: list[str] | None = None) -> int:
    """Recompute document frequencies from the index, per readership scope; returns the rows written.

    ``page_id``: only the scope that page's chunks count in (after it was reindexed); ``scopes``:
    only these scopes (``stamps.scope_key``), those whose pages changed. Each recount records the
    stamps of the scopes it counted, read before counting (``search/statistics/stamps.py``).
    """
    if page_id is not None:
        scope = page_scope(page_id)
        if scope is None:
            return 0
        scopes = [stamps.scope_key(*scope)]
    now = stamps.current()
    where, params = "true", []
    if scopes is not None:
        if not scopes:
            return 0
        now = {key: stamp for key, stamp in now.items() if key in scopes}
        where, params = f"{stamps.key_sql('p.space_id', 'r.groups')} = ANY(%s)", [list(scopes)]
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("LOCK TABLE search_lexemestat IN EXCLUSIVE MODE")
        if scopes is None:
            cursor.execute("DELETE FROM search_lexemestat")
        else:
            for key in scopes:
                space_id, groups = stamps.parse_scope_key(key)
                cursor.execute(
                    "DELETE FROM search_lexemestat WHERE space_id = %s AND groups = %s::int[]", [space_id, list(groups)]
                )
        # One pass over the chunks: each chunk counts once per lexeme it holds (tsvector_to_array
        # lists distinct lexemes); the empty lexeme (never a real one) holds the scope's chunk count.
        cursor.execute(
            f"""
            WITH scoped AS ({scoped_chunks_sql(where)} AND c.search_vector IS NOT NULL)
            INSERT INTO search_lexemestat (space_id, groups, language, lexeme, ndoc)
            SELECT space_id, groups, lang, left(lexeme, 300), count(*)
            FROM scoped, unnest(tsvector_to_array(search_vector)) AS lexeme
            WHERE lexeme <> '' GROUP BY 1, 2, 3, 4
            UNION ALL
            SELECT space_id, groups, lang, '', count(*) FROM scoped GROUP BY 1, 2, 3
            """,  # noqa: S608 - composed from our own SQL
            params,
        )
        written = int(cursor.rowcount)
    stamps.record(LEXEME_STAMPS, now, merge=scopes is not None)
    return written


def ensure_current(reader: Reader) -> list[str]:
    """Recount the scopes ``reader`` may read whose pages changed since they were counted (a page
    restricted, moved, published or deleted a moment ago); the scopes recounted.

    So a page that just left a reader's scopes no longer shapes their IDF or their known words,
    whether or not a worker or the sweep has run since. Scopes the reader cannot read are left
    to their own readers and the sweep.
    """
    stale = reader.changed_since(stamps.recorded(LEXEME_STAMPS))
    if stale:
        refresh_lexeme_stats(scopes=stale)
    return stale


def refresh_after_indexing(page_id: int | None = None) -> None:
    """Keep small indexes exact; for large ones, the reindexed page's scope (debounced per scope).

    Only the scope that changed is recounted, so a change to hidden pages never rewrites the
    statistics of the scopes a reader may read (the periodic sweep recounts everything).
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT GREATEST(reltuples, 0) FROM pg_class WHERE relname = 'search_chunk'")
        estimate = cursor.fetchone()[0]
    if estimate < SMALL_INDEX_CHUNKS or page_id is None:
        if estimate < SMALL_INDEX_CHUNKS or cache.add("lexemes:refresh-debounce", 1, REFRESH_DEBOUNCE_S):
            refresh_lexeme_stats()
        return
    scope = page_scope(page_id)
    if scope is not None and cache.add(f"lexemes:refresh-debounce:{scope[0]}:{scope[1]}", 1, REFRESH_DEBOUNCE_S):
        refresh_lexeme_stats(page_id=page_id)


def readable_chunks(language: str, reader: Reader = EVERYTHING) -> int:
    """Chunks in ``language`` (a code; one without a configuration counts as "other") of the scopes
    ``reader`` may read, and nothing else. One probe of the (language, lexeme) index per scope row."""
    partition = language if language in CONFIGS else "other"
    ensure_current(reader)
    readable, readable_params = reader.sql("s.space_id", "s.groups")
    with read_connection().cursor() as cursor:
        cursor.execute(
            f"SELECT COALESCE(sum(s.ndoc), 0) FROM search_lexemestat s "  # noqa: S608 - our own SQL
            f"WHERE s.language = %s AND s.lexeme = '' AND {readable}",
            [partition, *readable_params],
        )
        return int(cursor.fetchone()[0])


@dataclass(frozen=True)
class TermWeight:
    term: str  # the folded word the user typed
    idf: float
    ndoc: int  # chunks of the language that contain it


def term_weights(terms: list[str], reader: Reader = EVERYTHING) -> dict[str, list[TermWeight]]:
    """Per chunk language ("en", "fr", "other"): the terms that survive stop-words, with their IDF.

    Frequencies are summed over the scopes ``reader`` may read, and nothing else.
    """
    if not terms:
        return {}
    ensure_current(reader)
    readable, readable_params = reader.sql("s.space_id", "s.groups")
    with read_connection().cursor() as cursor:
        # The language totals (lexeme '') come in the same statement: one round trip per keyword pass.
        cursor.execute(
            f"""
            WITH lex AS (
                SELECT t.term, t.pos, l.lang, lex AS lexeme
                FROM unnest(%s::text[]) WITH ORDINALITY AS t(term, pos)
                CROSS JOIN (VALUES {_CONFIG_VALUES}) AS l(lang, cfg)
                CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector(l.cfg::regconfig, t.term))) AS lex
            ), wanted AS (SELECT DISTINCT lang, lexeme FROM lex UNION SELECT DISTINCT lang, '' FROM lex),
            counts AS MATERIALIZED (
                -- One index probe per wanted lexeme: a join let the planner scan every row of the table.
                SELECT w.lang, w.lexeme, (
                    SELECT COALESCE(sum(s.ndoc), 0) FROM search_lexemestat s
                    WHERE s.language = w.lang AND s.lexeme = w.lexeme AND {readable}
                ) AS ndoc
                FROM wanted w
            )
            SELECT lex.term, lex.lang, n.ndoc, total.ndoc
            FROM lex JOIN counts n ON n.lang = lex.lang AND n.lexeme = lex.lexeme
            JOIN counts total ON total.lang = lex.lang AND total.lexeme = ''
            ORDER BY lex.pos
            """,  # noqa: S608 - composed from our own SQL; values are parameters
            [terms, *readable_params],
        )
        rows = cursor.fetchall()
    weights: dict[str, dict[str, TermWeight]] = {}
    for term, lang, ndoc, total in rows:
        n = max(total, ndoc, 1)
        idf = math.log(1 + (n - ndoc + BM25_IDF_SMOOTHING) / (ndoc + BM25_IDF_SMOOTHING))
        known = weights.setdefault(lang, {}).get(term)
        # A word that splits into several lexemes keeps its rarest one.
        if known is None or idf > known.idf:
            weights[lang][term] = TermWeight(term, idf, int(ndoc))
    return {lang: list(by_term.values()) for lang, by_term in weights.items()}
