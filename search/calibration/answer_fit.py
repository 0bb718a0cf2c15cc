"""Fit the answer decision (``search/decisions/answer.py``) for one embedding model.

Each calibration question (answerable or not) is given the calibration handbook's passages nearest
to it, as retrieval would give Ask its passages, and Ask's own code scores their units
(``search/ask/extractive.candidates``: words, kind of thing asked), the question translated word by
word for the units in the other language as serving does (``handbook_translation.py``); each unit's
similarity to the question comes from the model. A unit is a positive when it holds the sentence the question's label
says answers it. A logistic regression over the units' features gives the probability that a unit
states the answer.

A question may carry sentences that do not answer it (``not_answers``: a reader's agreed No on a
quote). Units holding one are negatives, and the passages holding them are given to the question
beside its nearest ones (Ask was shown them, so retrieval gave them). A question with a known answer
keeps it beside those negatives; one without (``CalibrationSet.rejected``) contributes only its
negatives — its other units may well be the answer — and counts neither as answerable nor as
unanswerable in the threshold rules below.

The ``answer`` threshold, by a stated rule over out-of-fold probabilities (folds by question, so no
question is judged by a model that saw it): the lowest one at which the share of unanswerable
questions declined reaches the share of answerable questions answered (the equal error rate), a
question being answered when its best unit reaches it. It weighs a missed answer and a wrong answer
alike, as the highest mean of the two shares would; but that mean is flat over a wide band of
thresholds, so its highest point moved with any change to the material or the code, while the two
shares cross where both are steep, and the crossing holds from one refit to the next.

The ``sure`` threshold, by a stated rule over the same out-of-fold probabilities: the lowest one, from
the ``answer`` threshold up, at which the best unit states the answer for at least ``SURE_PRECISION``
of the questions it answers (unanswerable ones count as wrong there); when no threshold reaches that,
the one with the highest such precision among those answering at least ``SURE_MIN_COVERAGE`` of the
answerable questions, and the report says the fallback was used.

The report also gives the right-kind share: among the questions answered held out that ask for a date,
an amount, a count or a person (``search/ask/asked_kind.py``), those whose best unit holds that kind.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from config.numbers import (
    ANSWER_FIT_FALLBACK_THRESHOLD,
    CALIBRATION_FOLDS,
    FIT_MAX_ITERATIONS,
    SURE_MIN_COVERAGE,
    SURE_PRECISION,
)
from config.numbers import ANSWER_FIT_PASSAGES_PER_QUESTION as PASSAGES_PER_QUESTION
from config.numbers import QUERY_FIT_REGULARISATION as REGULARISATION
from core.text import detect_language
from search.ask.asked_kind import HOW_MANY, HOW_MUCH, WHEN, WHO, asked_kind, holds
from search.ask.extractive import Candidate, candidates
from search.ask.passages import Passage
from search.calibration.calibration_set import CalibrationPassage, CalibrationQuestion, CalibrationSet
from search.calibration.handbook_translation import HandbookTranslation
from search.calibration.query_fit import CalibrationHandbook
from search.calibration.standardised import Standardised
from search.decisions.answer import ANSWER, FEATURES, SURE
from search.decisions.policy import Decision
from search.embedding.embedders import Embedder
from statements.answer_units import Unit

RIGHT_KINDS = (WHEN, HOW_MUCH, HOW_MANY, WHO)  # the kinds whose share of right answers the report gives


@dataclass
class _Question:
    question: CalibrationQuestion
    units: list[Candidate]
    labels: list[int]
    negatives_only: bool = False  # known only by sentences that do not answer it

    @property
    def thresholded(self) -> bool:
        """Whether the threshold rules count it (as answerable or unanswerable)."""
        return not self.negatives_only


def _matches(unit: str, text: str) -> bool:
    return bool(text) and (text in unit or unit in text)


def _passage(
    number: int,
    index: int,
    passage: CalibrationPassage,
    similarity: float,
    vector: list[float],
    translations: dict[str, str],
) -> Passage:
    return Passage(
        number=number,
        passage_id=f"cal-{passage.id}",
        chunk_id=-(index + 1),  # no stored chunk: units are embedded here
        page_id=0,
        ref=passage.id,
        title=passage.page,
        url="",
        anchor=passage.id,
        heading=passage.heading_path,
        text=passage.text,
        language=passage.language,
        revision_id=0,
        revision_number=0,
        content_hash="",
        score=similarity,
        vector_distance=1.0 - similarity,
        keyword_rank=None,
        question_vector=vector,
        question_translations=translations,
    )


def _questions(calibration: CalibrationSet, handbook: CalibrationHandbook, embedder: Embedder) -> list[_Question]:
    asked = [*calibration.questions, *calibration.unanswerable, *calibration.rejected]
    rejected = len(calibration.questions) + len(calibration.unanswerable)  # where the rejected ones start
    vectors = handbook.query_vectors([q.text for q in asked], embedder)
    translation = HandbookTranslation(calibration, handbook, embedder)
    out: list[_Question] = []
    for n_asked, (question, vector) in enumerate(zip(asked, vectors, strict=True)):
        similarities = handbook.vectors @ vector
        nearest = list(np.argsort(-similarities)[:PASSAGES_PER_QUESTION])
        nearest += [
            i
            for i, p in enumerate(calibration.passages)
            if i not in nearest and any(text in p.text for text in question.not_answers)
        ]
        language = detect_language(question.text)
        translations = translation.translations(question.text, language)
        passages = [
            _passage(n + 1, int(i), calibration.passages[int(i)], float(similarities[i]), vector.tolist(), translations)
            for n, i in enumerate(nearest)
        ]
        units = candidates(question.text, language, passages)
        for c, unit_vector in zip(units, handbook.unit_vectors([c.unit.text for c in units], embedder), strict=True):
            c.similarity = float(unit_vector @ vector)
        labels = [
            int(
                question.passage == c.passage.ref
                and bool(question.answer)
                and (question.answer in c.unit.text or c.unit.text in question.answer)
                and not any(_matches(c.unit.text, text) for text in question.not_answers)
            )
            for c in units
        ]
        negatives_only = n_asked >= rejected
        if negatives_only:  # only what was rejected is known of it
            kept = [k for k, c in enumerate(units) if any(_matches(c.unit.text, t) for t in question.not_answers)]
            units, labels = [units[k] for k in kept], [labels[k] for k in kept]
        out.append(_Question(question, units, labels, negatives_only))
    return out


def right_kind(answered: list[tuple[str, Unit]]) -> dict[str, float | int]:
    """Among (question, lead unit) answered, those asking for a date, an amount, a count or a person: the
    share whose lead unit holds that kind (``search/ask/asked_kind.py``)."""
    specific = [(asked_kind(q), unit) for q, unit in answered if asked_kind(q) in RIGHT_KINDS]
    held = sum(holds(kind, unit) for kind, unit in specific)
    return {"questions": len(specific), "share": round(held / len(specific), 4) if specific else 0.0}


def equal_error_threshold(answerable: list[float], unanswerable: list[float]) -> float:
    """The lowest threshold at which the share of ``unanswerable`` declined (below it) reaches the share
    of ``answerable`` answered (at or above it)."""
    if not answerable or not unanswerable:
        return ANSWER_FIT_FALLBACK_THRESHOLD
    for t in sorted(set(answerable) | set(unanswerable)):
        answered = sum(p >= t for p in answerable) / len(answerable)
        declined = sum(p < t for p in unanswerable) / len(unanswerable)
        if declined >= answered:
            return t
    return ANSWER_FIT_FALLBACK_THRESHOLD  # the shares never cross: both kinds tie at the highest probability


def best_threshold(answerable: list[float], unanswerable: list[float]) -> tuple[float, float]:
    """The threshold with the highest mean of answered (answerable) and declined (unanswerable) shares."""
    best = (0.0, ANSWER_FIT_FALLBACK_THRESHOLD)
    for t in sorted(set(answerable) | set(unanswerable)):
        answered = sum(p >= t for p in answerable) / max(1, len(answerable))
        declined = sum(p < t for p in unanswerable) / max(1, len(unanswerable))
        score = (answered + declined) / 2
        if score > best[0]:
            best = (score, t)
    return best[1], best[0]


def sure_threshold(best: list[tuple[float, int, bool]], floor: float) -> tuple[float, dict[str, float | int | str]]:
    """The ``sure`` threshold over (held-out probability of a question's best unit, whether that unit
    states the answer, whether the question is answerable), and its figures; ``floor`` is the
    ``answer`` threshold (a sure answer is an answer)."""
    answerable = sum(1 for _p, _s, a in best if a) or 1
    unanswerable = sum(1 for _p, _s, a in best if not a) or 1

    def precision(t: float) -> float:
        above = [s for p, s, _a in best if p >= t]
        return sum(above) / max(1, len(above))

    def figures(t: float) -> dict[str, float | int | str]:
        above = [(s, a) for p, s, a in best if p >= t]
        return {
            "precision": round(precision(t), 4),
            "answerable_answered_sure": round(sum(1 for _s, a in above if a) / answerable, 4),
            "unanswerable_answered_sure": round(sum(1 for _s, a in above if not a) / unanswerable, 4),
            "questions_answered_sure": len(above),
        }

    candidates = sorted({p for p, _s, _a in best if p >= floor})
    for t in candidates:
        if precision(t) >= SURE_PRECISION:
            return t, figures(t) | {"rule": "precision_reached"}
    if not candidates:  # no question answered held out: nothing can be shown as sure
        return 1.0, figures(1.0) | {"rule": "fallback_none_answered"}
    covering = [t for t in candidates if float(figures(t)["answerable_answered_sure"]) >= SURE_MIN_COVERAGE]
    t = max(covering or candidates, key=lambda c: (precision(c), -c))
    return t, figures(t) | {"rule": "fallback_highest_precision"}


def _negative_counts(questions: list[_Question]) -> dict[str, int]:
    """How many units readers' rejections made negatives, and from how many questions known only so
    (absent when none: a fit without them reports as before)."""
    rejected = sum(any(_matches(c.unit.text, t) for t in q.question.not_answers) for q in questions for c in q.units)
    only = sum(q.negatives_only for q in questions)
    return {"rejected_units": rejected, "negatives_only_questions": only} if rejected or only else {}


def fit_answer_decision(calibration: CalibrationSet, handbook: CalibrationHandbook, embedder: Embedder) -> Decision:
    questions = [q for q in _questions(calibration, handbook, embedder) if q.units]
    rows = [(i, c, label) for i, q in enumerate(questions) for c, label in zip(q.units, q.labels, strict=True)]
    x = np.asarray([[c.features().values()[name] for name in FEATURES] for _i, c, _l in rows], dtype=np.float64)
    y = np.asarray([label for _i, _c, label in rows])
    groups = np.asarray([i for i, _c, _l in rows])
    standardised = Standardised.of(x)
    z = standardised(x)
    held_out = np.zeros(len(rows))
    for train, test in GroupKFold(n_splits=CALIBRATION_FOLDS).split(z, y, groups):
        model = LogisticRegression(C=REGULARISATION, max_iter=FIT_MAX_ITERATIONS).fit(z[train], y[train])
        held_out[test] = model.decision_function(z[test])
    model = LogisticRegression(C=REGULARISATION, max_iter=FIT_MAX_ITERATIONS).fit(z, y)
    best_unit: dict[int, tuple[float, int]] = {}
    lead: dict[int, Candidate] = {}
    for (i, c, label), logit in zip(rows, held_out, strict=True):
        if i not in best_unit or logit > best_unit[i][0]:
            best_unit[i], lead[i] = (float(logit), label), c
    probability = {i: float(1.0 / (1.0 + np.exp(-logit))) for i, (logit, _label) in best_unit.items()}
    counted = [(i, q) for i, q in enumerate(questions) if q.thresholded]
    answerable = [probability[i] for i, q in counted if q.question.passage is not None]
    unanswerable = [probability[i] for i, q in counted if q.question.passage is None]
    threshold = equal_error_threshold(answerable, unanswerable)
    answered = sum(p >= threshold for p in answerable) / max(1, len(answerable))
    declined = sum(p < threshold for p in unanswerable) / max(1, len(unanswerable))
    stated = [i for i, q in counted if q.question.passage is not None and any(q.labels)]
    sure, sure_figures = sure_threshold(
        [(probability[i], best_unit[i][1], q.question.passage is not None) for i, q in counted],
        threshold,
    )
    report = {
        "examples": {"units": len(rows), "answer_units": int(y.sum()), "questions": len(questions)}
        | _negative_counts(questions),
        "held_out": {
            "answerable_answered": round(answered, 4),
            "unanswerable_declined": round(declined, 4),
            "mean": round((answered + declined) / 2, 4),
            "first_unit_states_the_answer": round(sum(best_unit[i][1] for i in stated) / max(1, len(stated)), 4),
            "right_kind": right_kind(
                [(q.question.text, lead[i].unit) for i, q in counted if probability[i] >= threshold]
            ),
        },
        "sure": sure_figures,
        "rules": {
            ANSWER: "lowest threshold at which the share of unanswerable questions declined reaches the share of "
            "answerable ones answered (held out)",
            SURE: f"lowest threshold from the answer threshold up at which the best unit states the answer for at "
            f"least {SURE_PRECISION:.0%} of the questions answered (held out); else the highest such precision "
            f"answering at least {SURE_MIN_COVERAGE:.0%} of the answerable questions",
        },
    }
    weights, intercept = standardised.raw(model)
    return Decision(FEATURES, weights, intercept, {ANSWER: float(threshold), SURE: float(sure)}, report)
