"""Fitting sentence weights from ticked pages: pure functions, no database.

Used alike by the shipped weights' command (``fit_summary_weights``, from ``summaries/data/``),
the refit from editors' picks (``scorer_fit.py``) and the bench (``bench/summary_ticks.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from django.utils import timezone
from sklearn.linear_model import LogisticRegression

from config.numbers import SUMMARY_FIT_MAX_ITERATIONS
from config.numbers import SUMMARY_MAX_FOLDS as MAX_FOLDS
from config.numbers import SUMMARY_REGULARISATION_C as REGULARISATION_C
from handbook.markdown import markdown_to_text
from summaries.extractive import Pool, candidate_pool
from summaries.features import FEATURES, candidate_hashes, pool_features
from summaries.learnt import Scorer, chosen_hashes, f1


@dataclass
class Lesson:
    """One ticked page: its candidate sentences, their features, and which ones were ticked."""

    key: str
    pool: Pool
    markdown: str
    base_scores: list[float]  # today's extractive scores, kept: choosing re-scores the pool
    features: np.ndarray
    labels: np.ndarray
    picked: set[str]  # every ticked unit; F1 counts those a summary could quote

    def choice_f1(self, scores: np.ndarray | list[float]) -> float:
        for candidate, score in zip(self.pool.candidates, scores, strict=True):
            candidate.score = float(score)
        quotable = set(candidate_hashes(self.pool, self.markdown))
        return f1(chosen_hashes(self.pool, self.markdown), self.picked & quotable)


def lesson(*, key: str, markdown: str, title: str, language: str, picked: set[str]) -> Lesson | None:
    """The page as a lesson, or None when no quotable sentence of it was ticked (only rows, say)."""
    pool = candidate_pool(markdown_to_text(markdown), language=language, markdown=markdown)
    if not pool.candidates:
        return None
    labels = np.asarray([h in picked for h in candidate_hashes(pool, markdown)], dtype=np.int8)
    if not labels.any():
        return None
    features = pool_features(pool, markdown=markdown, title=title, language=language)
    return Lesson(key, pool, markdown, [c.score for c in pool.candidates], features, labels, set(picked))


def fit_scorer(lessons: list[Lesson], label: str) -> Scorer:
    x = np.vstack([lesson.features for lesson in lessons])
    y = np.concatenate([lesson.labels for lesson in lessons])
    if y.all() or not y.any():
        raise ValueError("the ticks need both ticked and unticked sentences")
    model = LogisticRegression(C=REGULARISATION_C, class_weight="balanced", max_iter=SUMMARY_FIT_MAX_ITERATIONS).fit(
        x, y
    )
    return Scorer(label, tuple(round(float(w), 6) for w in model.coef_[0]), round(float(model.intercept_[0]), 6))


def held_out_f1(lessons: list[Lesson], shipped: Scorer | None) -> dict[str, float]:
    """Mean F1 over held-out pages (k folds by page) of today's choice, the shipped weights'
    choice and the choice of weights fitted without those pages."""
    found: dict[str, list[float]] = {"extractive": [], "learnt": []}
    if shipped is not None:
        found["shipped"] = []
    folds = min(MAX_FOLDS, len(lessons))
    for k in range(folds):
        test = lessons[k::folds]
        train = [lesson for i, lesson in enumerate(lessons) if i % folds != k]
        try:
            fitted = fit_scorer(train, "held out") if train else None
        except ValueError:
            fitted = None
        for lesson in test:
            found["extractive"].append(lesson.choice_f1(lesson.base_scores))
            if shipped is not None:
                found["shipped"].append(lesson.choice_f1(shipped.scores(lesson.features)))
            found["learnt"].append(lesson.choice_f1(fitted.scores(lesson.features) if fitted else lesson.base_scores))
    for lesson in lessons:  # leave every pool with today's scores
        lesson.choice_f1(lesson.base_scores)
    return {name: round(float(np.mean(values)), 3) if values else 0.0 for name, values in found.items()}


def fit_report(
    lessons: list[Lesson], scorer: Scorer | None, held_out: dict[str, float], **extra: Any
) -> dict[str, Any]:
    return {
        "pages": len(lessons),
        "units": int(sum(len(lesson.labels) for lesson in lessons)),
        "ticked_units": int(sum(int(lesson.labels.sum()) for lesson in lessons)),
        "features": list(FEATURES),
        "weights": scorer.as_dict() if scorer else {},
        "held_out_f1": held_out,
        "date": timezone.now().date().isoformat(),
        **extra,
    }
