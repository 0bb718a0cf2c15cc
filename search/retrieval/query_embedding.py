"""Query embeddings cached in Redis: search-as-you-type repeats the same queries.

Each person has their own entries (``owner``): a shared entry would answer a query that anybody
asked recently faster than a fresh embedding (``bench.cache_timing``), telling whoever times it what
colleagues search for. The cost is one embedding per person per query instead of one per query.
"""

from __future__ import annotations

import hashlib
import logging

from django.core.cache import cache

from config.numbers import QUERY_VECTOR_TTL_S as TTL_S
from search.embedding.embedders import Embedder

logger = logging.getLogger(__name__)


def cache_key(text: str, model: str, owner: object = None) -> str:
    return "qemb:v2:" + hashlib.sha256(f"{model}\n{owner}\n{text}".encode()).hexdigest()


def query_embedding(text: str, embedder: Embedder, owner: object = None) -> list[float]:
    """``text``'s query vector, cached for ``owner`` (a user id; ``None``: tools and benchmarks)."""
    key = cache_key(text, embedder.model_name, owner)
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
