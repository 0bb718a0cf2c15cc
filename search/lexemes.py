"""Inverse document frequency for the keyword leg.

``ts_rank`` has no notion of how rare a word is, so with OR semantics a common
word ("leave", "données") outranks the rare word that names the answer. The
keyword leg therefore scores a chunk as the sum of the IDF of the query
lexemes it contains (title/heading matches count extra), BM25-style, with
document frequencies from ``LexemeStat``.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from django.core.cache import cache
from django.db import connection, transaction

logger = logging.getLogger(__name__)

# Postgres text-search configuration of each chunk language; others use "simple".
CONFIGS = {"en": "english", "fr": "french"}
SIMPLE = "simple"
SMALL_INDEX_CHUNKS = 5_000  # below this, refreshing after every reindex costs < 100 ms
REFRESH_DEBOUNCE_S = 60


def config_for(language: str) -> str:
    return CONFIGS.get(language, SIMPLE)


def refresh_lexeme_stats() -> int:
    """Recompute document frequencies from the index; returns the number of lexemes."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("LOCK TABLE search_lexemestat IN EXCLUSIVE MODE")
        cursor.execute("DELETE FROM search_lexemestat")
        for language in (*CONFIGS, "other"):
            # Inside ts_stat's SQL string literal, quotes are doubled.
            where = (
                f"language = ''{language}''"
                if language != "other"
                else "language NOT IN (" + ", ".join(f"''{lang}''" for lang in CONFIGS) + ")"
            )
            cursor.execute(
                "INSERT INTO search_lexemestat (language, lexeme, ndoc) SELECT %s, left(word, 300), ndoc"
                f" FROM ts_stat('SELECT search_vector FROM search_chunk WHERE {where}"  # noqa: S608 - constants
                " AND search_vector IS NOT NULL') ON CONFLICT DO NOTHING",
                [language],
            )
            # The empty lexeme (never a real one) holds the number of chunks: N in the IDF.
            cursor.execute(
                "INSERT INTO search_lexemestat (language, lexeme, ndoc)"
                " SELECT %s, '', count(*) FROM search_chunk WHERE " + where.replace("''", "'"),  # noqa: S608
                [language],
            )
        cursor.execute("SELECT count(*) FROM search_lexemestat")
        count = int(cursor.fetchone()[0])
    return count


def refresh_after_indexing() -> None:
    """Keep small indexes exact; debounce large ones (the periodic sweep refreshes too)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT GREATEST(reltuples, 0) FROM pg_class WHERE relname = 'search_chunk'")
        estimate = cursor.fetchone()[0]
    if estimate < SMALL_INDEX_CHUNKS or cache.add("lexemes:refresh-debounce", 1, REFRESH_DEBOUNCE_S):
        refresh_lexeme_stats()


@dataclass(frozen=True)
class TermWeight:
    term: str  # the folded word the user typed
    idf: float
    ndoc: int  # chunks of the language that contain it


def term_weights(terms: list[str]) -> dict[str, list[TermWeight]]:
    """Per chunk language ("en", "fr", "other"): the terms that survive stop-words, with their IDF."""
    if not terms:
        return {}
    with connection.cursor() as cursor:
        # The language totals (lexeme '') come in the same statement: one round trip per keyword pass.
        cursor.execute(
            """
            SELECT t.term, l.lang, COALESCE(s.ndoc, 0), COALESCE(total.ndoc, 0)
            FROM unnest(%s::text[]) WITH ORDINALITY AS t(term, pos)
            CROSS JOIN (VALUES ('en', 'english'), ('fr', 'french'), ('other', 'simple')) AS l(lang, cfg)
            CROSS JOIN LATERAL unnest(tsvector_to_array(to_tsvector(l.cfg::regconfig, t.term))) AS lex
            LEFT JOIN search_lexemestat s ON s.language = l.lang AND s.lexeme = lex
            LEFT JOIN search_lexemestat total ON total.language = l.lang AND total.lexeme = ''
            ORDER BY t.pos
            """,
            [terms],
        )
        rows = cursor.fetchall()
    weights: dict[str, dict[str, TermWeight]] = {}
    for term, lang, ndoc, total in rows:
        n = max(total, ndoc, 1)
        idf = math.log(1 + (n - ndoc + 0.5) / (ndoc + 0.5))
        known = weights.setdefault(lang, {}).get(term)
        # A word that splits into several lexemes keeps its rarest one.
        if known is None or idf > known.idf:
            weights[lang][term] = TermWeight(term, idf, int(ndoc))
    return {lang: list(by_term.values()) for lang, by_term in weights.items()}
