"""Query embeddings cached in Redis: search-as-you-type repeats the same queries."""

from __future__ import annotations

import hashlib
import logging

from django.core.cache import cache

from search.embedders import Embedder

TTL_S = 24 * 3600
logger = logging.getLogger(__name__)


def query_embedding(text: str, embedder: Embedder) -> list[float]:
    key = "qemb:" + hashlib.sha256(f"{embedder.model_name}\n{text}".encode()).hexdigest()
    try:
        cached = cache.get(key)
    except Exception:  # a cache outage must not break search
        cached = None
    if cached is not None:
        return list(cached)
    vector = embedder.embed_query(text)
    try:
        cache.set(key, vector, TTL_S)
    except Exception as exc:
        logger.warning("query embedding cache unavailable: %s", exc)
    return vector
