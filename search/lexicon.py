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

Vocabulary words are drawn from every chunk; a translation only steers which
*visible* chunks the keyword leg matches, and is never displayed or logged.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from django.core.cache import cache
from django.db import connection, transaction

from search.embedders import Embedder
from search.text import STOPWORDS, words

logger = logging.getLogger(__name__)

LANGUAGES = ("en", "fr")  # languages with stop-word lists and text-search configs
MIN_CHUNKS = 2  # a word must appear in this many chunks of its language (typos, names out)
MAX_WORDS_PER_LANGUAGE = 20_000  # the most frequent; ~30 MB of vectors at 384 dimensions
MIN_LANGUAGE_CHUNKS = 20  # below this a language's vocabulary (and its mean) is too thin
MIN_SIMILARITY = 0.5  # cosine of the centred vectors; below it a word is left untranslated
MAX_QUERY_WORDS = 12
EMBED_BATCH = 256
TRANSLATION_TTL_S = 24 * 3600
VERSION_KEY = "lexicon:version"
STALE_AFTER_S = 24 * 3600
STALE_CHUNK_SHARE = 0.05  # rebuild when the chunk count moved this much since the last build


# --- building --------------------------------------------------------------------------


def vocabulary() -> dict[str, Counter[str]]:
    """Per language: its most frequent content words -> number of chunks containing each."""
    counts: dict[str, Counter[str]] = {language: Counter() for language in LANGUAGES}
    with connection.cursor() as cursor:
        cursor.execute("SELECT language, heading, text FROM search_chunk WHERE language = ANY(%s)", [list(LANGUAGES)])
        while rows := cursor.fetchmany(2000):
            for language, heading, text in rows:
                counts[language].update(set(_content_words(f"{heading}\n{text}", language)))
    return {language: Counter(dict(c.most_common(MAX_WORDS_PER_LANGUAGE))) for language, c in counts.items()}


def _content_words(text: str, language: str) -> list[str]:
    """The words that are vocabulary (and get translated): no stop-words, numbers or 1-2 letter words."""
    stop = STOPWORDS[language]
    return [w for w in words(text) if len(w) >= 3 and w not in stop and not w.isdigit()]


def build_lexicon(embedder: Embedder, progress: Callable[[int, int], None] | None = None) -> dict[str, int]:
    """Bring the stored vocabulary in line with the chunks; only new words are embedded.

    Returns the number of words per language. Languages with too few chunks get none.
    """
    from search.models import LexiconWord

    started = time.monotonic()
    chunk_counts = _chunk_counts()
    wanted = {
        language: {w: n for w, n in counter.items() if n >= MIN_CHUNKS}
        for language, counter in vocabulary().items()
        if chunk_counts.get(language, 0) >= MIN_LANGUAGE_CHUNKS
    }
    model = embedder.model_name
    existing = set(LexiconWord.objects.filter(model=model).values_list("language", "word"))
    missing = [(language, w) for language, by_word in wanted.items() for w in by_word if (language, w) not in existing]
    total = len(missing)
    for start in range(0, total, EMBED_BATCH):
        batch = missing[start : start + EMBED_BATCH]
        vectors = embedder.embed_queries([w for _language, w in batch])
        LexiconWord.objects.bulk_create(
            [
                LexiconWord(model=model, language=language, word=w, chunks=wanted[language][w], embedding=vector)
                for (language, w), vector in zip(batch, vectors, strict=True)
            ],
            ignore_conflicts=True,  # a concurrent build wrote it first: same word, same vector
        )
        if progress:
            progress(min(start + EMBED_BATCH, total), total)
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
    mean: np.ndarray
    unit: np.ndarray  # centred, unit-length vectors, one row per word


_tables: dict[tuple[str, str], tuple[int, _Table | None]] = {}
_lock = threading.Lock()


def _table(model: str, language: str, stamp: int) -> _Table | None:
    """The language's word vectors, loaded once per process and reloaded after a rebuild."""
    key = (model, language)
    with _lock:
        known = _tables.get(key)
        if known is not None and known[0] == stamp:
            return known[1]
    # pgvector's binary form (int16 dimensions, int16 unused, big-endian float4s) loads ~5x faster
    # than parsing the text form row by row.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT word, vector_send(embedding) FROM search_lexiconword"
            " WHERE model = %s AND language = %s ORDER BY id",
            [model, language],
        )
        rows = cursor.fetchall()
    table = None
    if rows:
        matrix = np.stack([np.frombuffer(bytes(raw), dtype=">f4", offset=4) for _w, raw in rows]).astype(np.float32)
        mean = matrix.mean(axis=0)
        table_words = [w for w, _v in rows]
        table = _Table(table_words, {w: i for i, w in enumerate(table_words)}, mean, _unit(matrix - mean))
    with _lock:
        _tables[key] = (stamp, table)
    return table


def forget() -> None:
    """Drop the loaded tables and the build stamp (the next build starts a new version)."""
    with _lock:
        _tables.clear()
    cache.delete(VERSION_KEY)


def _unit(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def translate_words(text: str, source: str, target: str, embedder: Embedder) -> str | None:
    """The query's content words, each replaced by its nearest ``target`` word; None if none is close."""
    if source == target or source not in LANGUAGES or target not in LANGUAGES:
        return None
    query_words = list(dict.fromkeys(_content_words(text, source)))[:MAX_QUERY_WORDS]
    if not query_words:
        return None
    version = _version()
    if not version or version.get("model") != embedder.model_name:
        return None  # never built for this model (one-language handbook, or the sweep hasn't run yet)
    stamp = version["stamp"]
    material = f"{embedder.model_name}\n{stamp}\n{target}\n{' '.join(query_words)}"
    key = "lexicon:tr:" + hashlib.sha256(material.encode()).hexdigest()
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
    # Words of the handbook already have their vector in the source table; only the others are embedded.
    rows = [source_table.index.get(w) for w in query_words]
    missing = [w for w, row in zip(query_words, rows, strict=True) if row is None]
    embedded = dict(zip(missing, embedder.embed_queries(missing), strict=True)) if missing else {}
    units = np.stack(
        [
            source_table.unit[row]
            if row is not None
            else _unit(np.asarray(embedded[w], np.float32) - source_table.mean)
            for w, row in zip(query_words, rows, strict=True)
        ]
    )
    similarities = units @ target_table.unit.T
    best = similarities.argmax(axis=1)
    picked = [target_table.words[j] for i, j in enumerate(best) if similarities[i, j] >= MIN_SIMILARITY]
    translation = " ".join(dict.fromkeys(picked))
    try:
        cache.set(key, translation, TRANSLATION_TTL_S)
    except Exception:
        logger.warning("translation cache unavailable")
    return translation or None
