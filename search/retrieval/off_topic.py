"""Is the query about something else than the handbook? Compared with sentences on everyday subjects.

Multilingual e5 puts any two texts close: a question on another subject ("how long do cats live",
"recette de la blanquette") has a nearest handbook chunk as close as many real questions, so a
similarity floor alone cannot tell it from one. What does: such a question is closer still to a
sentence on its own subject. ``data/off_topic.txt`` holds sentences on everyday subjects a company
handbook does not cover (cooking, sport, animals, weather, geography, history, science, music,
gardening, cars, health, games), in English and French. A query whose nearest readable chunk is not
closer than ``Floor.off_topic_margin`` above its nearest such sentence is not confident
(``search/retrieval/pipeline.py``): its words alone must then match. One that is nearer its everyday
sentence by ``CLEARLY_OFF_TOPIC`` more is clearly about something else ("how to jump start a car",
"comment apprendre le vélo à un enfant"): a chunk must then hold every one of its words, since a
few common ones ("start", "vélo", "enfant") are in many handbooks.

The sentences are fixed text, so the test depends on the query and on what the reader may read,
never on pages they cannot read. Their vectors are a property of the model: those of the local
model ship in ``data/off_topic.<model>.npz`` (``python -m search.retrieval.off_topic`` writes them
again after the sentences change); another model's are computed once per process.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

import numpy as np

from search.indexing.embedders import Embedder

logger = logging.getLogger(__name__)

DATA = Path(__file__).resolve().parent / "data"
# Calibrated with bench/no_match.py: no answerable dev question comes within 0.018 of it.
CLEARLY_OFF_TOPIC = 0.015
SENTENCES_FILE = DATA / "off_topic.txt"
_lock = threading.Lock()
_vectors: dict[str, np.ndarray] = {}


@lru_cache(maxsize=1)
def sentences() -> tuple[str, ...]:
    lines = SENTENCES_FILE.read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def digest(model: str) -> str:
    """What the shipped vectors were computed from: the model and the sentences."""
    return hashlib.sha256("\n".join((model, *sentences())).encode()).hexdigest()


def shipped_path(model: str) -> Path:
    return DATA / f"off_topic.{re.sub(r'[^A-Za-z0-9.-]+', '-', model)}.npz"


def _normalised(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return array / np.where(norms == 0, 1, norms)


def _shipped(model: str) -> np.ndarray | None:
    path = shipped_path(model)
    if not path.is_file():
        return None
    with np.load(path) as data:
        if str(data["digest"]) != digest(model):
            logger.warning("%s is out of date with %s: computing the vectors", path.name, SENTENCES_FILE.name)
            return None
        return _normalised(data["vectors"])


def sentence_vectors(embedder: Embedder) -> np.ndarray:
    """Unit vectors of the sentences for the embedder's model: shipped, else computed once per process."""
    model = embedder.model_name
    found = _vectors.get(model)
    if found is not None:
        return found
    with _lock:
        if model not in _vectors:
            shipped = _shipped(model)
            if shipped is None:
                shipped = _normalised(embedder.embed_passages(list(sentences())))
            _vectors[model] = shipped
        return _vectors[model]


def nearest_off_topic(query_vector: Sequence[float], embedder: Embedder) -> float:
    """Cosine similarity of the query to its nearest off-topic sentence."""
    query = np.asarray(query_vector, dtype=np.float32)
    norm = float(np.linalg.norm(query)) or 1.0
    return float((sentence_vectors(embedder) @ (query / norm)).max())


def write_shipped(embedder: Embedder) -> Path:
    """Compute the sentences' vectors with ``embedder`` and write them next to the sentences."""
    vectors = np.asarray(embedder.embed_passages(list(sentences())), dtype=np.float16)
    path = shipped_path(embedder.model_name)
    np.savez_compressed(path, vectors=vectors, digest=np.array(digest(embedder.model_name)))
    return path


if __name__ == "__main__":  # python -m search.retrieval.off_topic: after editing data/off_topic.txt
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "handbook.settings")
    django.setup()
    from search.indexing.embedders import local_embedder

    print(f"wrote {write_shipped(local_embedder())}")
