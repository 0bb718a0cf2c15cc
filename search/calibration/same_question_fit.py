"""Fit when two wordings ask the same question (``search/decisions/same_question.py``) for one embedding model.

Calibration questions labelled with the same passage and the same answering sentence ask the same
thing in other words: pairs of them are paraphrases. Two questions on the same passage answered by
different sentences are the hard counter-examples ("other questions on the same page"); questions
on different passages are easy ones. A logistic regression over the pair's cosine similarity gives
the probability (its report); the threshold is the least cosine at which at most
``MAX_OTHER_QUESTION_MATCHES`` of the hard counter-examples match — a verified answer must not
answer another question about the same page — and its paraphrase recall is reported.
"""

from __future__ import annotations

import itertools

import numpy as np
from sklearn.linear_model import LogisticRegression

from search.calibration.calibration_set import CalibrationSet
from search.calibration.query_fit import CalibrationHandbook
from search.decisions.policy import Decision
from search.decisions.same_question import SAME_QUESTION
from search.embedding.embedders import Embedder

# A product choice (the verified answers' goal): another question on the same page gets the
# verified answer of a question it is not at most this often.
MAX_OTHER_QUESTION_MATCHES = 0.03


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
    x = np.asarray(same + other + unrelated).reshape(-1, 1)
    y = np.asarray([1] * len(same) + [0] * (len(other) + len(unrelated)))
    model = LogisticRegression(class_weight="balanced", max_iter=1000).fit(x, y)
    report = {
        "pairs": {"paraphrases": len(same), "same_passage_other_answer": len(other), "other_passage": len(unrelated)},
        "at_threshold": {
            "paraphrases_matched": round(float(np.mean(np.asarray(same) >= threshold)) if same else 0.0, 4),
            "same_passage_other_answer_matched": round(float(np.mean(hard >= threshold)), 4),
            "other_passage_matched": round(float(np.mean(np.asarray(unrelated) >= threshold)), 4),
        },
        "rules": {
            "similarity": f"least cosine matching at most {MAX_OTHER_QUESTION_MATCHES:.0%} of other same-page questions"
        },
    }
    return Decision(
        ("similarity",), (float(model.coef_[0][0]),), float(model.intercept_[0]), {"similarity": threshold}, report
    )
