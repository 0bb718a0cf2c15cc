"""The answer decision's fit translates each calibration question word by word with the calibration
handbook's own words, as serving translates a question with the asker's words: a unit in the other
language then shares the question's words while fitting as it does when serving."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from search.calibration import answer_fit
from search.calibration.calibration_set import CalibrationPassage, CalibrationQuestion, CalibrationSet
from search.calibration.handbook_translation import HandbookTranslation
from search.calibration.query_fit import calibration_handbook

pytestmark = pytest.mark.django_db  # the handbook's words are Postgres lexemes

# Each word pair shares a meaning; every word also leans towards its language, which centring removes.
PAIRS = {"leave": "vacances", "days": "jours", "office": "bureau", "canteen": "cantine"}
CONCEPT = {w: i for i, pair in enumerate(PAIRS.items()) for w in pair}
DIMS = len(PAIRS) + 2 + 16


def _vector(text: str) -> list[float]:
    v = np.zeros(DIMS)
    for word in text.lower().replace("?", " ").replace(".", " ").split():
        if word in CONCEPT:
            v[CONCEPT[word]] += 1.0
            v[len(PAIRS) + (1 if word in PAIRS.values() else 0)] += 0.8
    if not v.any():  # any other text: somewhere of its own, far from every word above
        seed = int(hashlib.sha256(text.encode()).hexdigest()[:8], 16)
        v[len(PAIRS) + 2 :] = np.random.default_rng(seed).normal(size=16)
    return (v / np.linalg.norm(v)).tolist()


class WordEmbedder:
    model_name = "word-pairs"

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return [_vector(t) for t in texts]

    embed_passages = embed_queries


def _material() -> CalibrationSet:
    english = [
        CalibrationPassage("en1", "en", "Leave", "", "Every employee gets 25 days of leave. Ask the office first."),
        CalibrationPassage("en2", "en", "Office", "", "The office canteen opens at noon. Leave days are counted."),
        CalibrationPassage("en3", "en", "Canteen", "", "The canteen closes at two. The office closes at six."),
    ]
    french = [
        CalibrationPassage("fr1", "fr", "Vacances", "", "Chaque salarié a 25 jours de vacances. Le bureau valide."),
        CalibrationPassage(
            "fr2", "fr", "Bureau", "", "La cantine du bureau ouvre à midi. Les jours de vacances comptent."
        ),
        CalibrationPassage("fr3", "fr", "Cantine", "", "La cantine ferme à deux heures. Le bureau ferme à six heures."),
    ]
    question = CalibrationQuestion(
        "Combien de jours de vacances ?", "fr", "en1", "Every employee gets 25 days of leave."
    )
    return CalibrationSet(tuple(english + french), (question,), (), ())


def test_a_question_is_translated_with_the_handbooks_words_of_the_other_language() -> None:
    material, embedder = _material(), WordEmbedder()
    translation = HandbookTranslation(material, calibration_handbook(material, embedder), embedder)
    assert set(translation.translations("Combien de jours de vacances ?", "fr")["en"].split()) == {"days", "leave"}
    assert set(translation.translations("How many days of leave?", "en")["fr"].split()) == {"jours", "vacances"}
    assert translation.translations("xqzvtk", "en") == {}  # not shaped like a word, in no page: no translation


def test_the_fit_gives_a_unit_in_the_other_language_the_translated_words() -> None:
    material, embedder = _material(), WordEmbedder()
    questions = answer_fit._questions(material, calibration_handbook(material, embedder), embedder)
    (question,) = questions
    by_text = {c.unit.text: (c, label) for c, label in zip(question.units, question.labels, strict=True)}
    unit, label = by_text["Every employee gets 25 days of leave."]
    assert unit.other_language and unit.words > 0 and label == 1
