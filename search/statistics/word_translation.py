"""Word translation without an LLM, for cross-language keyword search.

A French question about an English page shares no words with it, so the
keyword leg finds nothing. The multilingual embedding model already knows that
"remboursement" and "reimbursement" mean the same: we embed the handbook's own
frequent words once per language (``LexiconWord``), and at query time each
content word of the question is replaced by its nearest word of the other
language. The result is a bag of words for the keyword leg (fused as the
"translated" list), never shown to anyone.

Each language's vectors are centred on that language's mean word vector before
comparing: without it, every French word sits closer to other French words than
to its English translation. Measured on dev-crosslang (bench/search.py):
translated questions +0.08–0.09 nDCG@10 in both directions, native ones within
0.005. Words are single tokens, so idioms and non-cognates translate poorly;
an LLM translation, when configured, is used instead.

Vocabulary words are counted per readership scope (``search/statistics/scopes.py``): a
reader's translation picks among the words of the pages they may read, centred
on those words' mean, so a hidden page cannot change it. A translation only
steers which *visible* chunks the keyword leg matches, and is never displayed
or logged.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.core.cache import cache
from django.db import connection, transaction
from pgvector import Vector

from core import languages
from core.db_router import read_connection
from core.lru import MISSING, Lru
from core.text import STOPWORDS, words
from search.indexing.embedders import Embedder
from search.statistics.scopes import EVERYTHING, Reader
from search.statistics.word_shape import looks_like_a_word, vocabulary_triples

logger = logging.getLogger(__name__)

LANGUAGES = languages.CODES  # languages with stop-word lists and text-search configs
MIN_CHUNKS = 2  # a word must appear in this many chunks of its language (typos, names out)
MAX_WORDS_PER_LANGUAGE = 20_000  # the most frequent; ~30 MB of vectors at 384 dimensions
# Longest vocabulary word; the stored column holds 100 characters (LexiconWord.word).
MAX_WORD_CHARS = 40
MIN_LANGUAGE_CHUNKS = 20  # below this a language's vocabulary (and its mean) is too thin
MIN_SIMILARITY = 0.5  # cosine of the centred vectors; below it a word is left untranslated
MAX_QUERY_WORDS = 12
EMBED_BATCH = 256
TRANSLATION_TTL_S = 24 * 3600
VERSION_KEY = "lexicon:version"
STALE_AFTER_S = 24 * 3600
STALE_CHUNK_SHARE = 0.05  # rebuild when the chunk count moved this much since the last build


# --- building --------------------------------------------------------------------------


def scope_key(space_id: int, groups: list[int] | tuple[int, ...]) -> str:
    """A readership scope as stored with each word: ``"<space>"`` or ``"<space>:<g1>.<g2>"``."""
    return f"{space_id}:{'.'.join(map(str, groups))}" if groups else str(space_id)


def parse_scope_key(key: str) -> tuple[int, tuple[int, ...]]:
    space, _sep, groups = key.partition(":")
    return int(space), tuple(int(g) for g in groups.split(".") if g)


def vocabulary() -> dict[str, dict[str, Counter[str]]]:
    """Per language, per readership scope: its most frequent content words -> chunks containing each.

    Kept per scope (``search/statistics/scopes.py``) so that the words a reader's translation may use, and
    their frequencies, come from the pages that reader may read and from nothing else.
    """
    from search.statistics.scopes import scoped_chunks_sql

    counts: dict[str, dict[str, Counter[str]]] = {language: {} for language in LANGUAGES}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT s.chunk_language, s.space_id, s.groups, c.heading, c.text FROM ("  # noqa: S608
            + scoped_chunks_sql("c.language = ANY(%s)")
            + ") s JOIN search_chunk c ON c.id = s.id",
            [list(LANGUAGES)],
        )
        while rows := cursor.fetchmany(2000):
            for language, space_id, groups, heading, text in rows:
                by_scope = counts[language].setdefault(scope_key(space_id, groups), Counter())
                by_scope.update(set(_content_words(f"{heading}\n{text}", language)))
    return {
        language: {scope: Counter(dict(c.most_common(MAX_WORDS_PER_LANGUAGE))) for scope, c in scopes.items()}
        for language, scopes in counts.items()
    }


def _content_words(text: str, language: str) -> list[str]:
    """The words that are vocabulary (and get translated): no stop-words, numbers, 1-2 letter words,
    or tokens longer than any word (hashes, long identifiers: a real handbook has them)."""
    stop = STOPWORDS[language]
    return [w for w in words(text) if 3 <= len(w) <= MAX_WORD_CHARS and w not in stop and not w.isdigit()]


def build_lexicon(embedder: Embedder, progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
    """Bring the stored vocabulary in line with the chunks; only new words are embedded.

    A word is stored with its chunk count in each scope whose frequent words it is among; a
    reader's translation uses the words frequent enough in the scopes they may read (see
    ``_reader_view``). Returns the number of words per language. Languages with too few chunks
    get none.
    """
    from search.models import LexiconWord

    started = time.monotonic()
    chunk_counts = _chunk_counts()
    wanted: dict[str, dict[str, dict[str, int]]] = {}  # language -> word -> scope -> chunks
    for language, scopes in vocabulary().items():
        if chunk_counts.get(language, 0) < MIN_LANGUAGE_CHUNKS:
            continue
        by_word: dict[str, dict[str, int]] = {}
        for scope, counter in scopes.items():
            for w, n in counter.items():
                by_word.setdefault(w, {})[scope] = n
        # No reader can see more chunks of a word than all scopes together hold.
        wanted[language] = {w: by_scope for w, by_scope in by_word.items() if sum(by_scope.values()) >= MIN_CHUNKS}
    model = embedder.model_name
    existing = {(row.language, row.word): row for row in LexiconWord.objects.filter(model=model).defer("embedding")}
    missing = [(language, w) for language, by_word in wanted.items() for w in by_word if (language, w) not in existing]

    def scope_fields(language: str, w: str) -> dict[str, Any]:
        by_scope = wanted[language][w]
        scopes = sorted(by_scope)
        return {"scopes": scopes, "scope_chunks": [by_scope[k] for k in scopes], "chunks": sum(by_scope.values())}

    total = len(missing)
    for start in range(0, total, EMBED_BATCH):
        batch = missing[start : start + EMBED_BATCH]
        vectors = embedder.embed_queries([w for _language, w in batch])
        LexiconWord.objects.bulk_create(
            [
                LexiconWord(model=model, language=language, word=w, embedding=vector, **scope_fields(language, w))
                for (language, w), vector in zip(batch, vectors, strict=True)
            ],
            ignore_conflicts=True,  # a concurrent build wrote it first: same word, same vector
        )
        if progress:
            progress(min(start + EMBED_BATCH, total), total)
    changed = []
    for (language, w), row in existing.items():
        if w not in wanted.get(language, {}):
            continue
        fields = scope_fields(language, w)
        if any(getattr(row, name) != value for name, value in fields.items()):
            for name, value in fields.items():
                setattr(row, name, value)
            changed.append(row)
    LexiconWord.objects.bulk_update(changed, ["scopes", "scope_chunks", "chunks"], batch_size=1000)
    with transaction.atomic():
        # Words gone from the handbook, languages that lost their chunks, other models' vectors.
        stale = LexiconWord.objects.exclude(model=model) | LexiconWord.objects.exclude(language__in=list(wanted))
        stale.delete()
        for language, by_word in wanted.items():
            LexiconWord.objects.filter(model=model, language=language).exclude(word__in=list(by_word)).delete()
    cache.set(
        VERSION_KEY,
        {"model": model, "built_at": time.time(), "chunks": sum(chunk_counts.values()), "stamp": time.monotonic_ns()},
        None,
    )
    logger.info("lexicon built: %d new words in %.1f s", total, time.monotonic() - started)
    return {language: len(by_word) for language, by_word in wanted.items()}


def lexicon_is_stale(model: str) -> bool:
    """Whether the sweep should rebuild: never built, another model, old, or the corpus moved."""
    counts = _chunk_counts()
    if sum(1 for n in counts.values() if n >= MIN_LANGUAGE_CHUNKS) < 2:
        return False  # one language: there is nothing to translate into
    built = _version()
    if not built or built.get("model") != model:
        return True
    from search.models import LexiconWord

    if not LexiconWord.objects.filter(model=model).exists():
        return True  # emptied (an upgrade that changed how words are counted)
    if time.time() - built.get("built_at", 0) > STALE_AFTER_S:
        return True
    previous = max(1, int(built.get("chunks", 0)))
    return abs(sum(counts.values()) - previous) / previous > STALE_CHUNK_SHARE


def _chunk_counts() -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT language, count(*) FROM search_chunk GROUP BY language")
        return dict(cursor.fetchall())


def _version() -> dict | None:
    try:
        return cache.get(VERSION_KEY)
    except Exception:  # a cache outage must not break search
        return None


# --- translating --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Table:
    words: list[str]
    index: dict[str, int]  # word -> row
    vectors: np.ndarray  # one row per word, as embedded
    sqnorm: np.ndarray  # |v|² per row
    scopes: list[tuple[int, tuple[int, ...]]]  # the scopes words are counted in
    entry_word: np.ndarray  # (word row, scope, chunks) of every stored count, flattened
    entry_scope: np.ndarray
    entry_chunks: np.ndarray


@dataclass(frozen=True)
class _ReaderView:
    """One language's vocabulary as one reader may use it: words frequent enough in the scopes
    they may read, and the mean vector of those words (what centring removes)."""

    usable: np.ndarray  # bool per row
    mean: np.ndarray
    norms: np.ndarray  # |v - mean| per row
    triples: frozenset[str] = frozenset()  # letter triples of the usable words (search/statistics/word_shape.py)


_tables: dict[tuple[str, str], tuple[int, _Table | None]] = {}
MAX_READER_VIEWS = 64  # ~100 kB each: one per set of readable scopes in use
_views: Lru[tuple[str, str, int, str], _ReaderView | None] = Lru(MAX_READER_VIEWS)
_lock = threading.Lock()


def _table(model: str, language: str, stamp: int) -> _Table | None:
    """The language's word vectors, loaded once per process and reloaded after a rebuild."""
    key = (model, language)
    with _lock:
        known = _tables.get(key)
        if known is not None and known[0] == stamp:
            return known[1]
    # pgvector's binary form (vector_send) loads ~5x faster than the text form row by row.
    with read_connection().cursor() as cursor:
        cursor.execute(
            "SELECT word, vector_send(embedding), scopes, scope_chunks FROM search_lexiconword"
            " WHERE model = %s AND language = %s ORDER BY id",
            [model, language],
        )
        rows = cursor.fetchall()
    table = None
    if rows:
        matrix = np.stack([Vector.from_binary(bytes(raw)).to_numpy() for _w, raw, _s, _c in rows]).astype(np.float32)
        scope_index: dict[str, int] = {}
        entries = [
            (row, scope_index.setdefault(scope, len(scope_index)), n)
            for row, (_w, _raw, scopes, counts) in enumerate(rows)
            for scope, n in zip(scopes or [], counts or [], strict=True)
        ]
        entry = np.array(entries, dtype=np.int64).reshape(-1, 3)
        table_words = [w for w, _v, _s, _c in rows]
        table = _Table(
            words=table_words,
            index={w: i for i, w in enumerate(table_words)},
            vectors=matrix,
            sqnorm=np.einsum("ij,ij->i", matrix, matrix),
            scopes=[parse_scope_key(k) for k in scope_index],
            entry_word=entry[:, 0],
            entry_scope=entry[:, 1],
            entry_chunks=entry[:, 2],
        )
    with _lock:
        _tables[key] = (stamp, table)
    return table


def _reader_view(table: _Table, reader: Reader, cache_key: tuple[str, str, int, str]) -> _ReaderView | None:
    """``table`` as ``reader`` may use it (computed once per process and set of readable scopes)."""
    known = _views.get(cache_key, MISSING)
    if known is not MISSING:
        return known  # type: ignore[return-value]
    readable = np.array([reader.reads(space, groups) for space, groups in table.scopes], dtype=bool)
    weights = np.where(readable[table.entry_scope], table.entry_chunks, 0)
    chunks = np.bincount(table.entry_word, weights=weights, minlength=len(table.words))
    usable = chunks >= MIN_CHUNKS
    view = None
    if usable.any():
        mean = table.vectors[usable].mean(axis=0)
        # |v - m|² = |v|² - 2 v·m + |m|²: the centred norms without a centred copy of the table.
        norms = np.sqrt(np.maximum(table.sqnorm - 2 * (table.vectors @ mean) + float(mean @ mean), 0.0))
        known = vocabulary_triples(w for w, ok in zip(table.words, usable, strict=True) if ok)
        view = _ReaderView(usable, mean, np.where(norms == 0, 1.0, norms), known)
    _views.put(cache_key, view)
    return view


def forget() -> None:
    """Drop the loaded tables and the build stamp (the next build starts a new version)."""
    with _lock:
        _tables.clear()
    _views.clear()
    cache.delete(VERSION_KEY)


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def translate_words(
    text: str, source: str, target: str, embedder: Embedder, reader: Reader = EVERYTHING, owner: Any = None
) -> str | None:
    """The query's content words, each replaced by its nearest ``target`` word; None if none is close.

    Only words of the pages ``reader`` may read are candidates, centred on their own mean: a
    hidden page never changes a reader's translation. ``owner`` (a user id) keeps the result
    cache per person, so nobody can time whether somebody else asked the same words.
    """
    if source == target or source not in LANGUAGES or target not in LANGUAGES:
        return None
    query_words = list(dict.fromkeys(_content_words(text, source)))[:MAX_QUERY_WORDS]
    if not query_words:
        return None
    version = _version()
    if not version or version.get("model") != embedder.model_name:
        return None  # never built for this model (one-language handbook, or the sweep hasn't run yet)
    stamp = version["stamp"]
    material = f"{embedder.model_name}\n{stamp}\n{reader.key}\n{owner}\n{target}\n{' '.join(query_words)}"
    key = "lexicon:tr:v3:" + hashlib.sha256(material.encode()).hexdigest()
    try:
        cached = cache.get(key)
    except Exception:
        cached = None
    if cached is not None:
        return cached or None
    source_table = _table(embedder.model_name, source, stamp)
    target_table = _table(embedder.model_name, target, stamp)
    if source_table is None or target_table is None:
        return None
    model = embedder.model_name
    source_view = _reader_view(source_table, reader, (model, source, stamp, reader.key))
    target_view = _reader_view(target_table, reader, (model, target, stamp, reader.key))
    if source_view is None or target_view is None:
        return None
    # A word of the reader's own pages already has its vector in the table; any other word is
    # embedded, so a word found only in hidden pages costs the same as one found nowhere.
    rows = [_usable_row(source_table, source_view, w) for w in query_words]
    # A string no page of either language holds and that is not shaped like a word (a keyboard mash,
    # a code) has no translation: the nearest word would only be spelt alike ("zzzz" -> "xyz").
    kept = [
        (w, row)
        for w, row in zip(query_words, rows, strict=True)
        if row is not None
        or _usable_row(target_table, target_view, w) is not None
        or looks_like_a_word(w, source_view.triples, target_view.triples)
    ]
    if not kept:
        _remember(key, "")
        return None
    query_words, rows = [w for w, _ in kept], [row for _, row in kept]
    missing = [w for w, row in zip(query_words, rows, strict=True) if row is None]
    embedded = dict(zip(missing, embedder.embed_queries(missing), strict=True)) if missing else {}
    units = _unit(
        np.stack(
            [
                source_table.vectors[row] if row is not None else np.asarray(embedded[w], np.float32)
                for w, row in zip(query_words, rows, strict=True)
            ]
        )
        - source_view.mean
    )
    # Cosine to each centred target word: (u · v - u · m) / |v - m|, the unusable words masked out.
    similarities = (units @ target_table.vectors.T - (units @ target_view.mean)[:, None]) / target_view.norms
    similarities[:, ~target_view.usable] = -np.inf
    best = similarities.argmax(axis=1)
    picked = [target_table.words[j] for i, j in enumerate(best) if similarities[i, j] >= MIN_SIMILARITY]
    translation = " ".join(dict.fromkeys(picked))
    _remember(key, translation)
    return translation or None


def _usable_row(table: _Table, view: _ReaderView, word: str) -> int | None:
    """The word's row in ``table`` when the reader's pages hold it often enough, else None."""
    row = table.index.get(word)
    return row if row is not None and view.usable[row] else None


def _remember(key: str, translation: str) -> None:
    try:
        cache.set(key, translation, TRANSLATION_TTL_S)
    except Exception:
        logger.warning("translation cache unavailable")
