"""Sentences on everyday subjects and on workplace subjects, to tell a query on another subject.

Fixed text shipped with the product and its vectors under each embedding model, hence here beside the
embedders: retrieval and calibration read the nearest sentence of each set, and the everyday sentences
are known words to ``search/lexicon/word_shape.py``.

Multilingual e5 puts any two texts close: a question on another subject ("how long do cats live",
"recette de la blanquette") has a nearest handbook chunk as close as many real questions, so a
similarity alone cannot tell it from one. What does: such a question is closer still to a
sentence on its own subject. ``data/off_topic.txt`` holds sentences on everyday subjects a company
handbook does not cover (cooking, sport, animals, weather, geography, history, science, music,
gardening, cars, health, games), in English and French, and ``data/workplace.txt`` generic sentences
on the subjects handbooks do cover. Two more sets are queries people type, compared query to query:
the questions the calibration handbook answers and the calibration queries on other subjects
(``search/calibration/material/``) — a query is nearer a question of its own kind than a passage is to
either. The query's nearest sentence of each set is a feature of the fitted query decision
(``search/decisions/query.py``), which weighs them per model.

The sentences are fixed text, so the features depend on the query alone, never on pages a reader
cannot read. Their vectors are a property of the model: those of the local model ship in
``data/<set>.<model>.npz`` (``python -m search.embedding.sentence_sets`` writes them again after the
sentences change); another model's are computed once per process.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from search.embedding.embedders import Embedder

logger = logging.getLogger(__name__)

DATA = Path(__file__).resolve().parent / "data"
MATERIAL = Path(__file__).resolve().parents[1] / "calibration" / "material"
_lock = threading.Lock()
_vectors: dict[tuple[str, str], np.ndarray] = {}


@dataclass(frozen=True)
class SentenceSet:
    """Fixed sentences shipped in ``data/<name>.txt`` (or a field of a JSONL ``source``), with the local
    model's vectors in ``data/<name>.<model>.npz``."""

    name: str
    source: Path | None = None  # a JSONL file whose ``field`` holds the sentences
    field: str = ""
    as_queries: bool = False  # embedded as queries (what people type), not as passages

    @property
    def path(self) -> Path:
        return self.source or DATA / f"{self.name}.txt"

    def sentences(self) -> tuple[str, ...]:
        return _sentences(self.path, self.field)

    def digest(self, model: str) -> str:
        """What the shipped vectors were computed from: the model, how it embeds them and the sentences."""
        kind = ("query",) if self.as_queries else ()
        return hashlib.sha256("\n".join((model, *kind, *self.sentences())).encode()).hexdigest()

    def _embed(self, embedder: Embedder) -> list[list[float]]:
        sentences = list(self.sentences())
        return embedder.embed_queries(sentences) if self.as_queries else embedder.embed_passages(sentences)

    def shipped_path(self, model: str) -> Path:
        return DATA / f"{self.name}.{re.sub(r'[^A-Za-z0-9.-]+', '-', model)}.npz"

    def _shipped(self, model: str) -> np.ndarray | None:
        path = self.shipped_path(model)
        if not path.is_file():
            return None
        with np.load(path) as data:
            if str(data["digest"]) != self.digest(model):
                logger.warning("%s is out of date with %s: computing the vectors", path.name, self.path.name)
                return None
            return _normalised(data["vectors"])

    def vectors(self, embedder: Embedder) -> np.ndarray:
        """Unit vectors of the sentences for the embedder's model: shipped, else computed once per process."""
        key = (self.name, embedder.model_name)
        found = _vectors.get(key)
        if found is not None:
            return found
        with _lock:
            if key not in _vectors:
                shipped = self._shipped(embedder.model_name)
                if shipped is None:
                    shipped = _normalised(self._embed(embedder))
                _vectors[key] = shipped
            return _vectors[key]

    def nearest(
        self, query_vector: Sequence[float], embedder: Embedder, leaving_out: frozenset[str] = frozenset()
    ) -> float:
        """Cosine similarity of the query to its nearest sentence of the set, ``leaving_out`` some
        sentences (calibration: a question is not compared with itself or its passage's others)."""
        query = np.asarray(query_vector, dtype=np.float32)
        norm = float(np.linalg.norm(query)) or 1.0
        similarities = self.vectors(embedder) @ (query / norm)
        if leaving_out:
            kept = [i for i, sentence in enumerate(self.sentences()) if sentence not in leaving_out]
            similarities = similarities[kept] if kept else np.array([-1.0])
        return float(similarities.max())

    def write_shipped(self, embedder: Embedder) -> Path:
        """Compute the sentences' vectors with ``embedder`` and write them next to the sentences."""
        vectors = np.asarray(self._embed(embedder), dtype=np.float16)
        path = self.shipped_path(embedder.model_name)
        np.savez_compressed(path, vectors=vectors, digest=np.array(self.digest(embedder.model_name)))
        return path


EVERYDAY = SentenceSet("off_topic")  # subjects a handbook does not cover
WORKPLACE = SentenceSet("workplace")  # the subjects handbooks do cover, said generically
# Queries people type: questions a handbook answers, and queries on other subjects.
HANDBOOK_QUESTIONS = SentenceSet("handbook_questions", MATERIAL / "questions.jsonl", "question", as_queries=True)
OTHER_QUERIES = SentenceSet("other_queries", MATERIAL / "no_match.jsonl", "query", as_queries=True)
SETS = (EVERYDAY, WORKPLACE, HANDBOOK_QUESTIONS, OTHER_QUERIES)


@dataclass(frozen=True)
class Nearest:
    """A query's similarity to its nearest sentence of each set: four features of the query decision."""

    workplace: float
    everyday: float
    handbook_question: float
    other_query: float


def nearest_of_each(query_vector: Sequence[float], embedder: Embedder) -> Nearest:
    """The query's nearest sentence of every set, read in one step of the search."""
    return Nearest(
        workplace=WORKPLACE.nearest(query_vector, embedder),
        everyday=EVERYDAY.nearest(query_vector, embedder),
        handbook_question=HANDBOOK_QUESTIONS.nearest(query_vector, embedder),
        other_query=OTHER_QUERIES.nearest(query_vector, embedder),
    )


@lru_cache(maxsize=len(SETS))
def _sentences(path: Path, field: str) -> tuple[str, ...]:
    lines = path.read_text(encoding="utf-8").splitlines()
    if field:  # JSONL: one object a line, the sentence in ``field`` (each once)
        return tuple(dict.fromkeys(json.loads(line)[field].strip() for line in lines if line.strip()))
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def _normalised(vectors: Sequence[Sequence[float]]) -> np.ndarray:
    array = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    return array / np.where(norms == 0, 1, norms)


if __name__ == "__main__":  # python -m search.embedding.sentence_sets: after editing data/off_topic.txt
    import os

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from search.embedding.embedders import local_embedder

    for sentence_set in SETS:
        print(f"wrote {sentence_set.write_shipped(local_embedder())}")
