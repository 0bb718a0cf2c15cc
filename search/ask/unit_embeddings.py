"""Vectors of answer units at question time: stored at index time, else embedded now.

The stored ones (``search/indexing/unit_vectors.py``) are read by (passage chunk, unit text). A unit
not stored yet (its page was saved a moment ago, the bulk queue has not reached it) is embedded
here, through a cache keyed by model and text.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Sequence

from django.core.cache import cache

from config.numbers import SENTENCE_CACHE_TTL_S
from search.embedding.embedders import Embedder
from search.indexing.unit_vectors import stored_unit_vectors

logger = logging.getLogger(__name__)


def unit_vectors(
    units: list[tuple[int, str]], embedder: Embedder, stored: dict[tuple[int, str], list[float]] | None = None
) -> list[Sequence[float]]:
    """Vectors of (chunk id, unit text): stored at index time, else embedded now (a page just saved)."""
    if stored is None:
        stored = stored_unit_vectors(units, embedder.model_name)
    missing = list(dict.fromkeys(text for chunk_id, text in units if (chunk_id, text) not in stored))
    fresh = dict(zip(missing, sentence_vectors(missing, embedder), strict=True)) if missing else {}
    return [stored[key] if key in stored else fresh[key[1]] for key in units]


def sentence_vectors(sentences: list[str], embedder: Embedder) -> list[Sequence[float]]:
    """Vectors of the units; popular passages' units come from the cache (keyed by model + text)."""
    keys = {s: "sentvec:" + hashlib.sha256(f"{embedder.model_name}\n{s}".encode()).hexdigest() for s in sentences}
    try:
        cached = cache.get_many(list(keys.values()))
    except Exception:  # a cache outage only costs time
        cached = {}
    missing = [s for s in sentences if keys[s] not in cached]
    if missing:
        fresh = dict(zip(missing, embedder.embed_passages(missing), strict=True))
        try:
            cache.set_many({keys[s]: v for s, v in fresh.items()}, SENTENCE_CACHE_TTL_S)
        except Exception:
            logger.warning("sentence vector cache unavailable")
        cached.update({keys[s]: v for s, v in fresh.items()})
    return [cached[keys[s]] for s in sentences]
