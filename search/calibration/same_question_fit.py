"""Fit when two wordings ask the same question (``search/decisions/same_question.py``) for one embedding model.

Calibration questions labelled with the same passage and the same answering sentence ask the same
thing in other words: pairs of them are paraphrases. Two questions on the same passage answered by
different sentences are the hard counter-examples ("other questions on the same page"); questions
on different passages are easy ones. A logistic regression over the pair's cosine similarity gives
the probability (its report); the ``similarity`` threshold is the least cosine at which at most
``MAX_OTHER_QUESTION_MATCHES`` of the hard counter-examples match — a verified answer must not
answer another question about the same page — and its paraphrase recall is reported.

Many paraphrases sit below that cosine: other words for the same fact. For them a second look, as
Ask sees the question: among the units of the passages nearest to the new wording (as retrieval
would give Ask its passages), is the nearest one the sentence the verified question is answered by?
The ``related`` threshold is the least cosine at which a wording may match that way, by stated
rules over ordered pairs (verified question, new wording): both looks together match at most
``MAX_OTHER_QUESTION_MATCHES`` of the questions on the same page answered by another sentence, and
at most ``MAX_OTHER_PAGE_MATCHES`` of the questions on other pages.
"""

from __future__ import annotations

import itertools

import numpy as np
from sklearn.linear_model import LogisticRegression

from config.numbers import FIT_MAX_ITERATIONS, MAX_OTHER_PAGE_MATCHES, MAX_OTHER_QUESTION_MATCHES
from config.numbers import SAME_QUESTION_FIT_PASSAGES_PER_QUESTION as PASSAGES_PER_QUESTION
from search.calibration.calibration_set import CalibrationQuestion, CalibrationSet
from search.calibration.query_fit import CalibrationHandbook
from search.decisions.policy import Decision
from search.decisions.same_question import RELATED, SAME_QUESTION, SIMILARITY
from search.embedding.embedders import Embedder
from statements.answer_units import sentence_units

__all__ = ["SAME_QUESTION", "fit_same_question"]


def fit_same_question(calibration: CalibrationSet, handbook: CalibrationHandbook, embedder: Embedder) -> Decision:
    questions = list(calibration.questions)
    vectors = handbook.query_vectors([q.text for q in questions], embedder)
    cosines = vectors @ vectors.T
    same, other, unrelated = [], [], []
    for i, j in itertools.combinations(range(len(questions)), 2):
        a, b = questions[i], questions[j]
        if a.passage != b.passage:
            unrelated.append(float(cosines[i, j]))
        elif a.answer == b.answer:
            same.append(float(cosines[i, j]))
        else:
            other.append(float(cosines[i, j]))
    hard = np.sort(np.asarray(other or [1.0]))
    # The least cosine leaving at most the allowed share of the hard counter-examples at or above it.
    allowed = int(MAX_OTHER_QUESTION_MATCHES * len(hard))
    threshold = float(np.nextafter(hard[len(hard) - 1 - allowed], 2.0))
    related, second_look = _related(calibration, handbook, embedder, vectors, threshold)
    x = np.asarray(same + other + unrelated).reshape(-1, 1)
    y = np.asarray([1] * len(same) + [0] * (len(other) + len(unrelated)))
    model = LogisticRegression(class_weight="balanced", max_iter=FIT_MAX_ITERATIONS).fit(x, y)
    report = {
        "pairs": {"paraphrases": len(same), "same_passage_other_answer": len(other), "other_passage": len(unrelated)},
        "at_threshold": {
            "paraphrases_matched": round(float(np.mean(np.asarray(same) >= threshold)) if same else 0.0, 4),
            "same_passage_other_answer_matched": round(float(np.mean(hard >= threshold)), 4),
            "other_passage_matched": round(float(np.mean(np.asarray(unrelated) >= threshold)), 4),
        },
        "second_look": second_look,
        "rules": {
            SIMILARITY: f"least cosine matching at most {MAX_OTHER_QUESTION_MATCHES:.0%} of other same-page questions",
            RELATED: (
                "least cosine at which a wording whose nearest unit among its nearest passages answers the "
                f"verified question matches, both looks together matching at most {MAX_OTHER_QUESTION_MATCHES:.0%} "
                f"of the questions on the same page answered by another sentence and {MAX_OTHER_PAGE_MATCHES:.1%} "
                "of the questions on other pages"
            ),
        },
    }
    return Decision(
        (SIMILARITY,),
        (float(model.coef_[0][0]),),
        float(model.intercept_[0]),
        {SIMILARITY: threshold, RELATED: related},
        report,
    )


def _answers(unit: str, question: CalibrationQuestion) -> bool:
    return bool(question.answer) and (question.answer in unit or unit in question.answer)


def _nearest_units(
    calibration: CalibrationSet, handbook: CalibrationHandbook, embedder: Embedder, vectors: np.ndarray
) -> list[tuple[str, str] | None]:
    """For each question: (passage id, unit text) of the unit nearest to it among the units of its
    nearest passages."""
    passages = calibration.passages
    units = [[u.text for u in sentence_units(p.text)] for p in passages]
    found: list[tuple[str, str] | None] = []
    for vector in vectors:
        best: tuple[float, tuple[str, str] | None] = (-2.0, None)
        for i in np.argsort(-(handbook.vectors @ vector))[:PASSAGES_PER_QUESTION]:
            texts = units[int(i)]
            if not texts:
                continue
            similarities = handbook.unit_vectors(texts, embedder) @ vector
            j = int(np.argmax(similarities))
            if similarities[j] > best[0]:
                best = (float(similarities[j]), (passages[int(i)].id, texts[j]))
        found.append(best[1])
    return found


def _related(
    calibration: CalibrationSet,
    handbook: CalibrationHandbook,
    embedder: Embedder,
    vectors: np.ndarray,
    similarity: float,
) -> tuple[float, dict[str, object]]:
    """The ``related`` threshold over ordered pairs (verified question ``a``, new wording ``b``)."""
    questions = list(calibration.questions)
    n = len(questions)
    if n < 2:
        return similarity, {}
    page_of = {p.id: p.page for p in calibration.passages}
    nearest = _nearest_units(calibration, handbook, embedder, vectors)
    cosines = vectors @ vectors.T
    # agrees[a, b]: b's nearest unit is in a's passage and states a's answer.
    agrees = np.zeros((n, n), dtype=bool)
    for b, found in enumerate(nearest):
        if found is not None:
            unit_passage, unit = found
            for a, q in enumerate(questions):
                agrees[a, b] = q.passage == unit_passage and _answers(unit, q)
    passage = np.asarray([q.passage or "" for q in questions])
    answer = np.asarray([q.answer for q in questions])
    page = np.asarray([page_of.get(q.passage or "", "") for q in questions])
    pairs = ~np.eye(n, dtype=bool)
    paraphrase = pairs & (passage[:, None] == passage[None, :]) & (answer[:, None] == answer[None, :])
    same_page = pairs & (page[:, None] == page[None, :]) & ~paraphrase
    other_page = pairs & (page[:, None] != page[None, :])

    base = cosines >= similarity
    extra = agrees & ~base  # what the second look adds, at its pair's cosine or above

    sorted_extra = {id(kind): np.sort(cosines[extra & kind]) for kind in (paraphrase, same_page, other_page)}

    def share(kind: np.ndarray, related: float) -> float:
        if not kind.any():
            return 0.0
        added = sorted_extra[id(kind)]
        return (int(base[kind].sum()) + len(added) - int(np.searchsorted(added, related))) / int(kind.sum())

    # Lowering the threshold only adds matches: walk down the cosines of agreeing pairs.
    related = similarity
    for candidate in np.unique(cosines[extra & pairs])[::-1]:
        over_same = share(same_page, candidate) > MAX_OTHER_QUESTION_MATCHES
        if over_same or share(other_page, candidate) > MAX_OTHER_PAGE_MATCHES:
            break
        related = float(candidate)
    return related, {
        "pairs": {
            "paraphrases": int(paraphrase.sum()),
            "same_page": int(same_page.sum()),
            "other_page": int(other_page.sum()),
        },
        "paraphrases_matched_similarity_alone": round(share(paraphrase, similarity), 4),
        "paraphrases_matched": round(share(paraphrase, related), 4),
        "same_page_matched": round(share(same_page, related), 4),
        "other_page_matched": round(share(other_page, related), 4),
    }
