"""Counting the handbook's content words per language and readership scope (the vocabulary's input).

``search/lexicon/word_translation.py`` stores the frequent ones with their vectors; here they are
only counted, from the chunks of published pages, each chunk once per word it holds.
"""

from __future__ import annotations

from collections import Counter

from django.db import connection

from config.numbers import LEXICON_FETCH_BATCH as FETCH_BATCH
from config.numbers import LEXICON_MAX_WORD_CHARS as MAX_WORD_CHARS
from config.numbers import LEXICON_MIN_WORD_CHARS as MIN_WORD_CHARS
from config.numbers import MAX_WORDS_PER_LANGUAGE
from core import languages
from core.text import STOPWORDS, words
from search.statistics.scopes import scoped_chunks_sql
from search.statistics.stamps import key_sql, scope_key

LANGUAGES = languages.CODES  # languages with stop-word lists and text-search configs


def content_words(text: str, language: str) -> list[str]:
    """The words that are vocabulary (and get translated): no stop-words, numbers, 1-2 letter words,
    or tokens longer than any word (hashes, long identifiers: a real handbook has them)."""
    stop = STOPWORDS[language]
    return [w for w in words(text) if MIN_WORD_CHARS <= len(w) <= MAX_WORD_CHARS and w not in stop and not w.isdigit()]


def vocabulary(scopes: list[str] | None = None) -> dict[str, dict[str, Counter[str]]]:
    """Per language, per readership scope: its most frequent content words -> chunks containing each.

    Kept per scope (``search/statistics/scopes.py``) so that the words a reader's translation may use, and
    their frequencies, come from the pages that reader may read and from nothing else. ``scopes``:
    only these (``stamps.scope_key``), the ones whose pages changed.
    """
    where, params = "c.language = ANY(%s)", [list(LANGUAGES)]
    if scopes is not None:
        where += f" AND {key_sql('p.space_id', 'r.groups')} = ANY(%s)"
        params.append(list(scopes))
    counts: dict[str, dict[str, Counter[str]]] = {language: {} for language in LANGUAGES}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT s.chunk_language, s.space_id, s.groups, c.heading, c.text FROM ("  # noqa: S608
            + scoped_chunks_sql(where)
            + ") s JOIN search_chunk c ON c.id = s.id",
            params,
        )
        while rows := cursor.fetchmany(FETCH_BATCH):
            for language, space_id, groups, heading, text in rows:
                by_scope = counts[language].setdefault(scope_key(space_id, groups), Counter())
                by_scope.update(set(content_words(f"{heading}\n{text}", language)))
    return {
        language: {scope: Counter(dict(c.most_common(MAX_WORDS_PER_LANGUAGE))) for scope, c in scopes_.items()}
        for language, scopes_ in counts.items()
    }
