"""The everyday sentences that tell a question on another subject from a handbook question."""

from __future__ import annotations

import numpy as np
import pytest

from search.embedding import sentence_sets
from search.embedding.embedders import local_embedder


@pytest.mark.parametrize("sentence_set", sentence_sets.SETS, ids=lambda s: s.name)
def test_the_shipped_vectors_are_those_of_the_sentences_as_written(sentence_set: sentence_sets.SentenceSet) -> None:
    """GIVEN a sentences file and the local model THEN the shipped vectors were computed from exactly
    these sentences (edit them, then run ``python -m search.embedding.sentence_sets``) and equal a fresh
    embedding of them."""
    embedder = local_embedder()
    path = sentence_set.shipped_path(embedder.model_name)
    with np.load(path) as data:
        assert str(data["digest"]) == sentence_set.digest(embedder.model_name), f"{path.name} is out of date"
        shipped = data["vectors"].astype(np.float32)
    sentences = sentence_set.sentences()
    assert shipped.shape == (len(sentences), embedder.dimensions) and len(sentences) >= 150
    sample = [0, len(sentences) // 2, len(sentences) - 1]
    embed = embedder.embed_queries if sentence_set.as_queries else embedder.embed_passages
    fresh = np.asarray(embed([sentences[i] for i in sample]), dtype=np.float32)
    assert np.abs(shipped[sample] - fresh).max() < 1e-2  # stored as float16


def test_workplace_subjects_are_not_among_the_sentences() -> None:
    """A sentence on a handbook subject would turn real questions away."""
    words = {"leave", "congé", "congés", "expense", "salary", "salaire", "password", "badge", "manager", "laptop"}
    for sentence in sentence_sets.EVERYDAY.sentences():
        assert not words & set(sentence.lower().replace("?", " ").split()), sentence


def test_an_other_subject_is_nearer_its_sentences_than_a_handbook_question() -> None:
    embedder = local_embedder()

    def nearest(text: str) -> float:
        return sentence_sets.EVERYDAY.nearest(embedder.embed_query(text), embedder)

    assert nearest("how long do cats live") > nearest("how many days of annual leave do I get")
    assert nearest("recette de la blanquette de veau") > nearest("comment poser mes congés payés")


def test_a_work_question_is_nearer_the_workplace_sentences_and_another_subject_the_everyday_ones() -> None:
    embedder = local_embedder()
    for work, other in (
        ("how do I claim my train ticket back", "how long to boil an egg"),
        ("combien de jours de télétravail par semaine", "comment tailler un rosier"),
    ):
        work_vector, other_vector = embedder.embed_query(work), embedder.embed_query(other)
        workplace, everyday = sentence_sets.WORKPLACE, sentence_sets.EVERYDAY
        assert workplace.nearest(work_vector, embedder) > everyday.nearest(work_vector, embedder)
        assert workplace.nearest(other_vector, embedder) < everyday.nearest(other_vector, embedder)


def test_the_sets_of_queries_are_the_calibration_queries_embedded_as_queries() -> None:
    """The handbook questions and other-subject queries are the calibration material's own lines,
    each once, and their vectors are query vectors (e5 embeds a query unlike the same passage)."""
    questions = sentence_sets.HANDBOOK_QUESTIONS.sentences()
    assert "How many days of annual leave do I get?" in questions and len(set(questions)) == len(questions)
    others = sentence_sets.OTHER_QUERIES.sentences()
    assert "How long should I boil an egg for a runny yolk?" in others
    embedder = local_embedder()
    vector = np.asarray(sentence_sets.HANDBOOK_QUESTIONS.vectors(embedder)[0])
    as_query = np.asarray(embedder.embed_query(questions[0]), dtype=np.float32)
    as_passage = np.asarray(embedder.embed_passages([questions[0]])[0], dtype=np.float32)
    assert float(vector @ as_query / np.linalg.norm(as_query)) > 0.999
    assert float(vector @ as_passage / np.linalg.norm(as_passage)) < 0.99


def test_nearest_leaves_out_the_sentences_it_is_told_to() -> None:
    """Calibration compares a shipped question with the set less itself and its passage's others:
    left in, its own line would make it as near as can be."""
    embedder = local_embedder()
    question = "How many days of annual leave do I get?"
    vector = embedder.embed_query(question)
    assert sentence_sets.HANDBOOK_QUESTIONS.nearest(vector, embedder) > 0.999
    assert sentence_sets.HANDBOOK_QUESTIONS.nearest(vector, embedder, leaving_out=frozenset({question})) < 0.99
    everything = frozenset(sentence_sets.HANDBOOK_QUESTIONS.sentences())
    assert sentence_sets.HANDBOOK_QUESTIONS.nearest(vector, embedder, leaving_out=everything) == -1.0
