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
to its English translation. Measured on dev-crosslang by bench.search (figures in
docs/dev/benchmarks.md): translated questions gain in both directions, native ones
are unchanged. Words are single tokens, so idioms and non-cognates translate poorly;
an LLM translation, when configured, is used instead.

Vocabulary words are counted per readership scope (``search/statistics/scopes.py``): a
reader's translation picks among the words of the pages they may read, centred
on those words' mean, so a hidden page cannot change it. A translation only
steers which *visible* chunks the keyword leg matches, and is never displayed
or logged.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import Count

from config.numbers import LEXICON_BUILD_LOCK as _BUILD_LOCK
from config.numbers import LEXICON_EMBED_BATCH as EMBED_BATCH
from config.numbers import LEXICON_MIN_CHUNKS as MIN_CHUNKS
from config.numbers import LEXICON_MIN_LANGUAGE_CHUNKS as MIN_LANGUAGE_CHUNKS
from config.numbers import (
    LEXICON_UPDATE_BATCH,
    MAX_QUERY_WORDS,
    ON_DEMAND_NEW_WORDS,
    REFUSED_BUILD_RETRY_S,
    STALE_AFTER_S,
    STALE_CHUNK_SHARE,
    TRANSLATION_TTL_S,
    WORD_TRANSLATION_MIN_SIMILARITY,
)
from core.queues import enqueue
from search.embedding.embedders import Embedder
from search.embedding.model_switch import query_embedder
from search.lexicon import word_vectors
from search.lexicon.word_counts import LANGUAGES, content_words, vocabulary
from search.lexicon.word_shape import looks_like_a_word
from search.models import LexiconWord
from search.statistics import stamps
from search.statistics.scopes import EVERYTHING, Reader
from search.statistics.stamps import parse_scope_key, scope_key  # noqa: F401 - the vocabulary's scope keys

logger = logging.getLogger(__name__)

VERSION_KEY = "lexicon:version"


# --- building --------------------------------------------------------------------------


@contextlib.contextmanager
def _one_build() -> Iterator[None]:
    """A transaction holding the build lock: builds never interleave their writes, and readers see
    a build whole or not at all."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [_BUILD_LOCK])
        yield


def build_lexicon(
    embedder: Embedder,
    progress: Callable[[int, int], None] | None = None,
    *,
    scopes: list[str] | None = None,
    max_new: int | None = None,
) -> dict[str, int] | None:
    """Bring the stored vocabulary in line with the chunks; only new words are embedded.

    A word is stored with its chunk count in each scope whose frequent words it is among; a
    reader's translation uses the words frequent enough in the scopes they may read (see
    ``word_vectors.reader_view``). Returns the number of words per language. Languages with too few
    chunks get none. ``scopes``: recount only these (pages moved in or out of them), keeping the
    other scopes' stored counts. ``max_new``: write nothing and return None when more words than
    this would need a vector.
    """
    started = time.monotonic()
    model = embedder.model_name
    with _one_build():
        previous = _version()
        now = stamps.current()  # before counting: a change landing meanwhile is counted again later
        if scopes is not None:
            if not previous or previous.get("model") != model:
                scopes = None  # nothing to recount against: build it all
            else:  # another build may have recounted them while this one waited for the lock
                scopes = stamps.changed(previous.get("scopes"), {k: v for k, v in now.items() if k in scopes})
                if not scopes:
                    return _stored_counts(model)
                now = {k: now[k] for k in scopes}
        chunk_counts = _chunk_counts()
        existing = {(row.language, row.word): row for row in LexiconWord.objects.filter(model=model).defer("embedding")}
        by_word: dict[str, dict[str, dict[str, int]]] = {
            language: {} for language in LANGUAGES if chunk_counts.get(language, 0) >= MIN_LANGUAGE_CHUNKS
        }
        if scopes is not None:  # the scopes not recounted keep the counts stored with each word
            for (language, w), row in existing.items():
                kept = {k: n for k, n in zip(row.scopes or [], row.scope_chunks or [], strict=True) if k not in scopes}
                if kept and language in by_word:
                    by_word[language][w] = kept
        for language, counted in vocabulary(scopes).items():
            for scope, counter in counted.items() if language in by_word else ():
                for w, n in counter.items():
                    by_word[language].setdefault(w, {})[scope] = n
        # No reader can see more chunks of a word than all scopes together hold.
        wanted = {
            language: {w: by_scope for w, by_scope in found.items() if sum(by_scope.values()) >= MIN_CHUNKS}
            for language, found in by_word.items()
        }
        missing = [(language, w) for language, found in wanted.items() for w in found if (language, w) not in existing]
        if max_new is not None and len(missing) > max_new:
            return None
        _write(embedder, wanted, existing, missing, progress)
    record = {"model": model, "built_at": time.time(), "chunks": sum(chunk_counts.values()), "scopes": now}
    if scopes is not None and previous:  # a recount of some scopes is not a full build
        record = {**previous, "scopes": {**previous.get("scopes", {}), **now}}
    cache.set(VERSION_KEY, {**record, "stamp": time.time_ns(), "new_words": len(missing)}, None)
    logger.info("lexicon built: %d new words in %.1f s", len(missing), time.monotonic() - started)
    return {language: len(found) for language, found in wanted.items()}


def _write(embedder: Embedder, wanted: dict, existing: dict, missing: list, progress: Any) -> None:
    """Store the new words with their vectors, the counts that moved, and drop the words gone."""
    model = embedder.model_name

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
            ignore_conflicts=True,
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
    LexiconWord.objects.bulk_update(changed, ["scopes", "scope_chunks", "chunks"], batch_size=LEXICON_UPDATE_BATCH)
    # Words gone from the handbook, languages that lost their chunks, other models' vectors.
    stale = LexiconWord.objects.exclude(model=model) | LexiconWord.objects.exclude(language__in=list(wanted))
    stale.delete()
    for language, found in wanted.items():
        LexiconWord.objects.filter(model=model, language=language).exclude(word__in=list(found)).delete()


def _stored_counts(model: str) -> dict[str, int]:
    rows = LexiconWord.objects.filter(model=model).values("language").annotate(n=Count("id"))
    return {row["language"]: row["n"] for row in rows}


def lexicon_needs_build(model: str) -> bool:
    """Whether a build would change anything: never built, another model, emptied, old, pages moved
    between scopes since (restricted, moved, published, deleted), or the corpus grew or shrank."""
    built = _version()
    if not built or built.get("model") != model:
        return True
    if not LexiconWord.objects.filter(model=model).exists() and any(_chunk_counts().values()):
        return True  # emptied (an upgrade that changed how words are counted)
    if time.time() - built.get("built_at", 0) > STALE_AFTER_S:
        return True
    if stamps.changed(built.get("scopes"), stamps.current()):
        return True
    previous = max(1, int(built.get("chunks", 0)))
    return abs(sum(_chunk_counts().values()) - previous) / previous > STALE_CHUNK_SHARE


def lexicon_is_stale(model: str) -> bool:
    """Whether the sweep should rebuild: as ``lexicon_needs_build``; a first build only in a handbook
    of two languages (one language has nothing to translate into; its vocabulary is built by an
    import, for suggestions, and kept current from then on)."""
    built = _version()
    first = not built or built.get("model") != model
    if first and sum(1 for n in _chunk_counts().values() if n >= MIN_LANGUAGE_CHUNKS) < 2:
        return False
    return lexicon_needs_build(model)


def _chunk_counts() -> dict[str, int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT language, count(*) FROM search_chunk GROUP BY language")
        return dict(cursor.fetchall())


def _version() -> dict | None:
    try:
        return cache.get(VERSION_KEY)
    except Exception:  # a cache outage must not break search
        return None


def reader_version(reader: Reader, embedder: Embedder | None = None) -> dict | None:
    """The vocabulary's build record, with the scopes ``reader`` may read counted as they are now.

    Built here when it never was (the first search after a start, before the worker got to it),
    and the reader's scopes whose pages changed since recounted (a page restricted or moved a
    moment ago): what a search gets does not depend on whether a background build has run yet.
    Only the reader's own scopes are checked. None: no vocabulary (embeddings off, or too large a
    build for a search, queued for a worker instead).
    """
    version = _version()
    if embedder is None:
        embedder = query_embedder()
    if embedder is None or (version and version.get("model") != embedder.model_name):
        return version  # a model switch: the sweep rebuilds for the new model
    now: dict[str, int] = {}
    if version is None:
        if not settings.SEARCH_WORD_TRANSLATION:
            return None
        scopes = None
    else:
        scopes = reader.changed_since(version.get("scopes"))  # as the search read them with the reader
        if not scopes:
            return version
        now = dict(reader.current_stamps().by_scope)
    # Keyed by what would be built: the whole vocabulary, or these scopes at these stamps (all of them
    # scopes this reader may read, so nobody learns anything of another reader's pages from it).
    refused = (
        "lexicon:refused:"
        + hashlib.sha256(
            f"{embedder.model_name}\n{[(k, now[k]) for k in scopes] if scopes is not None else 'all'}".encode()
        ).hexdigest()
    )
    with contextlib.suppress(Exception):  # a cache outage: try the build, as before
        if cache.get(refused):
            return version
    if build_lexicon(embedder, scopes=scopes, max_new=ON_DEMAND_NEW_WORDS) is None:
        with contextlib.suppress(Exception):
            cache.set(refused, True, REFUSED_BUILD_RETRY_S)
        with contextlib.suppress(Exception):  # broker down: the sweep queues it
            enqueue("search.tasks.refresh_lexicon")
    return _version()


# --- translating --------------------------------------------------------------------------


def forget() -> None:
    """Drop the loaded tables and the build stamp (the next build starts a new version)."""
    word_vectors.forget()
    cache.delete(VERSION_KEY)


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
    query_words = list(dict.fromkeys(content_words(text, source)))[:MAX_QUERY_WORDS]
    if not query_words:
        return None
    version = reader_version(reader, embedder)
    if not version or version.get("model") != embedder.model_name:
        return None  # not built for this model (a model switch, or too large a build for a search)
    stamp = version["stamp"]
    material = f"{embedder.model_name}\n{stamp}\n{reader.key}\n{owner}\n{target}\n{' '.join(query_words)}"
    key = "lexicon:tr:v3:" + hashlib.sha256(material.encode()).hexdigest()
    try:
        cached = cache.get(key)
    except Exception:
        cached = None
    if cached is not None:
        return cached or None
    source_table = word_vectors.load_table(embedder.model_name, source, stamp)
    target_table = word_vectors.load_table(embedder.model_name, target, stamp)
    if source_table is None or target_table is None:
        return None
    model = embedder.model_name
    source_view = word_vectors.reader_view(source_table, reader, (model, source, stamp, reader.key), MIN_CHUNKS)
    target_view = word_vectors.reader_view(target_table, reader, (model, target, stamp, reader.key), MIN_CHUNKS)
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
    units = word_vectors.unit_rows(
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
    translation = nearest_words(similarities, target_table.words)
    _remember(key, translation)
    return translation or None


def nearest_words(similarities: np.ndarray, target_words: Sequence[str]) -> str:
    """Each query word's nearest target word (``similarities``: one row per query word, one column per
    target word), kept from ``WORD_TRANSLATION_MIN_SIMILARITY``, each once: the translation's text."""
    best = similarities.argmax(axis=1)
    picked = [target_words[j] for i, j in enumerate(best) if similarities[i, j] >= WORD_TRANSLATION_MIN_SIMILARITY]
    return " ".join(dict.fromkeys(picked))


def _usable_row(table: word_vectors.Table, view: word_vectors.ReaderView, word: str) -> int | None:
    """The word's row in ``table`` when the reader's pages hold it often enough, else None."""
    row = table.index.get(word)
    return row if row is not None and view.usable[row] else None


def _remember(key: str, translation: str) -> None:
    try:
        cache.set(key, translation, TRANSLATION_TTL_S)
    except Exception:
        logger.warning("translation cache unavailable")
