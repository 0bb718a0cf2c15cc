"""The everyday sentences that tell a question on another subject from a handbook question."""

from __future__ import annotations

import numpy as np

from search.indexing.embedders import local_embedder
from search.retrieval import off_topic


def test_the_shipped_vectors_are_those_of_the_sentences_as_written() -> None:
    """GIVEN the sentences file and the local model THEN the shipped vectors were computed from exactly
    these sentences (edit them, then run ``python -m search.retrieval.off_topic``) and equal a fresh
    embedding of them."""
    embedder = local_embedder()
    path = off_topic.shipped_path(embedder.model_name)
    with np.load(path) as data:
        assert str(data["digest"]) == off_topic.digest(embedder.model_name), f"{path.name} is out of date"
        shipped = data["vectors"].astype(np.float32)
    sentences = off_topic.sentences()
    assert shipped.shape == (len(sentences), embedder.dimensions) and len(sentences) >= 150
    sample = [0, len(sentences) // 2, len(sentences) - 1]
    fresh = np.asarray(embedder.embed_passages([sentences[i] for i in sample]), dtype=np.float32)
    assert np.abs(shipped[sample] - fresh).max() < 1e-2  # stored as float16


def test_workplace_subjects_are_not_among_the_sentences() -> None:
    """A sentence on a handbook subject would turn real questions away."""
    words = {"leave", "congé", "congés", "expense", "salary", "salaire", "password", "badge", "manager", "laptop"}
    for sentence in off_topic.sentences():
        assert not words & set(sentence.lower().replace("?", " ").split()), sentence


def test_an_other_subject_is_nearer_its_sentences_than_a_handbook_question() -> None:
    embedder = local_embedder()

    def nearest(text: str) -> float:
        return off_topic.nearest_off_topic(embedder.embed_query(text), embedder)

    assert nearest("how long do cats live") > nearest("how many days of annual leave do I get")
    assert nearest("recette de la blanquette de veau") > nearest("comment poser mes congés payés")
