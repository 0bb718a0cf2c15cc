"""Fit the page decision (``search/decisions/query.py``: which results match closely) for one model.

Each answerable calibration question is given the calibration handbook's ``CANDIDATES`` passages
nearest to it, as a result list; the passage that answers it is the positive, the others not.
Features per passage: its similarity to the question, how far behind the nearest passage it is,
and the share of the question's words (IDF-weighted) it holds. The ``close`` threshold, by a stated
rule over out-of-fold probabilities: the one that best separates the answering passages from the
others (the highest mean of the two shares told apart).
"""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

from config.numbers import CALIBRATION_FOLDS, FIT_MAX_ITERATIONS
from config.numbers import PAGE_FIT_CANDIDATES as CANDIDATES
from config.numbers import QUERY_FIT_REGULARISATION as REGULARISATION
from core.text import detect_language
from search.calibration.answer_fit import best_threshold
from search.calibration.calibration_set import CalibrationSet
from search.calibration.query_fit import CalibrationHandbook, lexemes
from search.calibration.standardised import Standardised
from search.decisions.policy import Decision
from search.decisions.query import PAGE_FEATURES, PageFeatures
from search.embedding.embedders import Embedder


def fit_page_decision(calibration: CalibrationSet, handbook: CalibrationHandbook, embedder: Embedder) -> Decision:
    index = {pid: i for i, pid in enumerate(handbook.ids)}
    vectors = handbook.query_vectors([q.text for q in calibration.questions], embedder)
    rows: list[tuple[int, list[float], int]] = []
    for number, (question, vector) in enumerate(zip(calibration.questions, vectors, strict=True)):
        similarities = handbook.vectors @ vector
        listed = [int(i) for i in np.argsort(-similarities)[:CANDIDATES]]
        terms = lexemes(question.text, detect_language(question.text))
        nearest = float(similarities[listed[0]])
        for i in listed:
            features = PageFeatures(
                float(similarities[i]), nearest - float(similarities[i]), handbook.coverage_of(terms, i)
            )
            values = features.values()
            rows.append((number, [values[name] for name in PAGE_FEATURES], int(i == index[question.passage or ""])))
    x = np.asarray([r[1] for r in rows], dtype=np.float64)
    y = np.asarray([r[2] for r in rows])
    groups = np.asarray([r[0] for r in rows])
    standardised = Standardised.of(x)
    z = standardised(x)
    held_out = np.zeros(len(rows))
    for train, test in GroupKFold(n_splits=CALIBRATION_FOLDS).split(z, y, groups):
        fold = LogisticRegression(C=REGULARISATION, class_weight="balanced", max_iter=FIT_MAX_ITERATIONS).fit(
            z[train], y[train]
        )
        held_out[test] = fold.predict_proba(z[test])[:, 1]
    model = LogisticRegression(C=REGULARISATION, class_weight="balanced", max_iter=FIT_MAX_ITERATIONS).fit(z, y)
    close, separation = best_threshold(list(held_out[y == 1]), list(held_out[y == 0]))
    report = {
        "examples": {"results": len(rows), "answering": int(y.sum())},
        "held_out": {
            "answering_close": round(float(np.mean(held_out[y == 1] >= close)), 4),
            "others_folded": round(float(np.mean(held_out[y == 0] < close)), 4),
            "mean": round(separation, 4),
        },
        "rules": {"close": "highest mean of answering passages kept close and other passages folded"},
    }
    weights, intercept = standardised.raw(model)
    return Decision(PAGE_FEATURES, weights, intercept, {"close": float(close)}, report)
