"""The stored word vectors of the vocabulary, loaded per process, and one reader's view of them.

``search/lexicon/word_translation.py`` builds the vocabulary and translates with it; this is
the in-memory side: each language's table (reloaded when a build changes the version stamp) and,
per set of readable scopes, the words that reader may use and their mean vector.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np
from cachetools import LRUCache
from pgvector import Vector

from config.numbers import MAX_READER_VIEWS
from core.db_router import read_connection
from search.lexicon.word_shape import vocabulary_triples
from search.statistics.scopes import Reader
from search.statistics.stamps import parse_scope_key


@dataclass(frozen=True)
class Table:
    words: list[str]
    index: dict[str, int]  # word -> row
    vectors: np.ndarray  # one row per word, as embedded
    sqnorm: np.ndarray  # |v|² per row
    scopes: list[tuple[int, tuple[int, ...]]]  # the scopes words are counted in
    entry_word: np.ndarray  # (word row, scope, chunks) of every stored count, flattened
    entry_scope: np.ndarray
    entry_chunks: np.ndarray


@dataclass(frozen=True)
class ReaderView:
    """One language's vocabulary as one reader may use it: words frequent enough in the scopes
    they may read, and the mean vector of those words (what centring removes)."""

    usable: np.ndarray  # bool per row
    mean: np.ndarray
    norms: np.ndarray  # |v - mean| per row
    triples: frozenset[str] = frozenset()  # letter triples of the usable words (search/lexicon/word_shape.py)


_tables: dict[tuple[str, str], tuple[int, Table | None]] = {}
_views: LRUCache[tuple[str, str, int, str], ReaderView | None] = LRUCache(MAX_READER_VIEWS)
_lock = threading.Lock()  # for both maps: web threads share them, and cachetools' LRU is not thread-safe


def load_table(model: str, language: str, stamp: int) -> Table | None:
    """The language's word vectors, loaded once per process and reloaded after a rebuild."""
    key = (model, language)
    with _lock:
        known = _tables.get(key)
        if known is not None and known[0] == stamp:
            return known[1]
    # pgvector's binary form (vector_send) loads much faster than the text form row by row.
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
        table = Table(
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


def reader_view(
    table: Table, reader: Reader, cache_key: tuple[str, str, int, str], min_chunks: int
) -> ReaderView | None:
    """``table`` as ``reader`` may use it (computed once per process and set of readable scopes)."""
    with _lock:
        if cache_key in _views:  # None is a view too: no word usable for this reader
            return _views[cache_key]
    readable = np.array([reader.reads(space, groups) for space, groups in table.scopes], dtype=bool)
    weights = np.where(readable[table.entry_scope], table.entry_chunks, 0)
    chunks = np.bincount(table.entry_word, weights=weights, minlength=len(table.words))
    usable = chunks >= min_chunks
    view = None
    if usable.any():
        mean = table.vectors[usable].mean(axis=0)
        # |v - m|² = |v|² - 2 v·m + |m|²: the centred norms without a centred copy of the table.
        norms = np.sqrt(np.maximum(table.sqnorm - 2 * (table.vectors @ mean) + float(mean @ mean), 0.0))
        triples = vocabulary_triples(w for w, ok in zip(table.words, usable, strict=True) if ok)
        view = ReaderView(usable, mean, np.where(norms == 0, 1.0, norms), triples)
    with _lock:
        _views[cache_key] = view
    return view


def unit_rows(matrix: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(matrix, axis=-1, keepdims=True)
    return matrix / np.where(norms == 0, 1, norms)


def forget() -> None:
    """Drop every loaded table and reader view (the next use loads them again)."""
    with _lock:
        _tables.clear()
        _views.clear()
