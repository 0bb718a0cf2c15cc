"""The learnt sentence choice: today's candidate sentences, re-scored by fitted weights.

The pool (which sentences may be quoted, how many, the table digest that follows them) stays
``extractive.py``'s; only the order of the sentences changes. The weights are data: the shipped
ones (``shipped_weights.json``, fitted by ``manage.py fit_summary_weights`` from
``summaries/data/``), or a ``SummaryScorerFit`` fitted from editors' picks once enough pages
carry them (``fitting.py``).
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from core import fitted
from statements.answer_units import page_units
from summaries.extractive import ExtractiveSummary, Pool, candidate_pool, summary_from_pool
from summaries.features import FEATURES, candidate_hashes, pool_features
from summaries.models import SummaryScorerFit

logger = logging.getLogger(__name__)

SHIPPED_WEIGHTS = Path(__file__).with_name("shipped_weights.json")
# A figure as bench/summary_facts.py counts them: "1 500", "45,50", "2026".
_FIGURE_RE = re.compile(r"\d+(?:[.,\u202f\u00a0 ]\d+)*")


@dataclass(frozen=True)
class Scorer:
    """Weights per feature. ``label`` is stored on the summaries it chose ("" for the shipped
    weights), so a summary made with other weights is made again."""

    label: str
    coef: tuple[float, ...]
    intercept: float

    def scores(self, features: np.ndarray) -> np.ndarray:
        if features.shape[0] == 0:
            return np.zeros(0)
        return features @ np.asarray(self.coef) + self.intercept

    def as_dict(self) -> dict[str, Any]:
        return {"coef": dict(zip(FEATURES, self.coef, strict=True)), "intercept": self.intercept}


def scorer_from_weights(label: str, weights: dict[str, Any]) -> Scorer:
    """A scorer from stored weights ({"coef": {feature: weight}, "intercept": b}); a feature the
    weights do not name weighs nothing, so weights fitted before a feature was added still serve."""
    coef = weights.get("coef") or {}
    return Scorer(label, tuple(float(coef.get(name, 0.0)) for name in FEATURES), float(weights.get("intercept", 0.0)))


@cache
def shipped_scorer() -> Scorer:
    data = json.loads(SHIPPED_WEIGHTS.read_text(encoding="utf-8"))
    return scorer_from_weights("", data["weights"])


def _read(_model: str) -> Scorer:
    fit = SummaryScorerFit.readable().filter(in_use=True).order_by("-fitted_at", "-pk").first()
    if fit is not None and fit.weights.get("coef"):
        return scorer_from_weights(f"fit {fit.pk}", fit.weights)
    return shipped_scorer()


def current_scorer() -> Scorer:
    """The fit in use, else the shipped weights (one set for every embedding model). ``core/fitted.py``
    keeps it per process: a refit takes effect once committed."""
    return fitted.current(SummaryScorerFit.KIND, "", _read)


def rescored(pool: Pool, scorer: Scorer, *, markdown: str | None, title: str, language: str) -> Pool:
    """The pool with each candidate's score replaced by the scorer's."""
    scores = scorer.scores(pool_features(pool, markdown=markdown, title=title, language=language))
    for candidate, score in zip(pool.candidates, scores, strict=True):
        candidate.score = float(score)
    return pool


def summarise_learnt(plain_text: str, *, language: str, title: str, markdown: str, scorer: Scorer) -> ExtractiveSummary:
    """``summarise_extractive`` with the scorer's choice of sentences (the table digest stays).

    Key facts first: when the unscored choice (the page's vocabulary alone) states more of the
    figures of the page's tables than the scorer's, it is kept, so no summary states fewer of its
    page's figures than that choice."""
    pool = candidate_pool(plain_text, language=language, markdown=markdown)
    today = summary_from_pool(pool)
    learnt = summary_from_pool(rescored(pool, scorer, markdown=markdown, title=title, language=language))
    figures = {n for u in page_units(markdown) if u.kind == "row" for n in _FIGURE_RE.findall(u.source)}
    if figures and _stated(figures, today) > _stated(figures, learnt):
        return today
    return learnt


def _stated(figures: set[str], summary: ExtractiveSummary) -> int:
    return len(figures & set(_FIGURE_RE.findall(summary.text)))


def chosen_hashes(pool: Pool, markdown: str | None) -> set[str]:
    """Addresses of the sentences a summary of this (scored) pool quotes; table digests aside."""
    hashes = dict(zip((c.sentence for c in pool.candidates), candidate_hashes(pool, markdown), strict=True))
    return {hashes[s] for s in summary_from_pool(pool).sentences if s in hashes}


def f1(chosen: set[str], picked: set[str]) -> float:
    """Agreement of a choice with an editor's pick, over units."""
    if not chosen or not picked:
        return 1.0 if chosen == picked else 0.0
    both = len(chosen & picked)
    return 2 * both / (len(chosen) + len(picked))
