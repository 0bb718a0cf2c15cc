"""Fit the retrieval entry (``search/decisions/retrieval.py``) for one embedding model.

Every answerable calibration question is asked of the calibration handbook's passages through the
meaning lists as retrieval forms them: the plain vector list (cosine to the query) and the
language-centred list (``(c - α μ_L) · (q - α μ_q)`` over the languages with enough passages, as
``crosslang.centred_query`` and ``merge_partitions`` rank; none with α = 0, nor for a question whose
detected language has no mean), each cut at the lists' depth, fused by reciprocal rank fusion with
the plain list weighed ``vector_weight``. A pair's score: the mean reciprocal rank of each question's
passage in the fused list, over every question of both languages (0 where no list holds it).

Every pair of the grid is scored; the best wins, a tie going to the pair nearer the model's shipped
values (else the neutral ones), so that a refit on the same material keeps them. Held out: the pair
chosen on the questions of four groups of passages is scored on the fifth group's questions.

Left out of the simulation: the word lists (the calibration handbook is too small for their ranks
to mean what they mean on a real one) and the similarity floors, which are fitted after this, with
its α (``query_fit.py``).
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import GroupKFold

from config.numbers import LEG_DEPTH, MIN_CHUNKS_PER_LANGUAGE, RRF_K
from config.numbers import RETRIEVAL_FIT_FOLDS as FOLDS
from config.numbers import RETRIEVAL_FIT_GRID_POINTS as GRID_POINTS
from config.numbers import RETRIEVAL_FIT_GRID_STEP as GRID_STEP
from core.text import detect_language
from search.calibration.calibration_set import CalibrationSet
from search.calibration.query_fit import CalibrationHandbook
from search.decisions.policy import Decision
from search.decisions.retrieval import NEUTRAL, RetrievalWeights, retrieval_decision
from search.embedding.embedders import Embedder

GRID = tuple(round(GRID_STEP * i, 1) for i in range(GRID_POINTS))  # α and the weight alike: none .. all


def _ranks(scores: np.ndarray) -> np.ndarray:
    """Per row, each passage's rank (1 = first); a tie goes to the passage listed first, as the lists
    break ties by chunk id."""
    order = np.argsort(-scores, axis=1, kind="stable")
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, scores.shape[1] + 1)[None, :].repeat(len(scores), 0), axis=1)
    return ranks


def _share(ranks: np.ndarray, weight: float | np.ndarray = 1.0) -> np.ndarray:
    """A list's reciprocal-rank-fusion share of each passage: nothing beyond the list's depth."""
    return np.where(ranks <= LEG_DEPTH, np.asarray(weight)[..., None] / (RRF_K + ranks), 0.0)


def _reciprocal_ranks(fused: np.ndarray, right: np.ndarray) -> np.ndarray:
    """1 / the rank of each question's passage in its fused scores (0 when no list holds it)."""
    own = fused[np.arange(len(fused)), right][:, None]
    before = np.arange(fused.shape[1])[None, :] < right[:, None]
    rank = 1 + (fused > own).sum(axis=1) + ((fused == own) & before).sum(axis=1)
    return np.where(own[:, 0] > 0, 1.0 / rank, 0.0)


class _Asked:
    """The questions asked of the calibration handbook, with what every pair of the grid needs."""

    def __init__(self, calibration: CalibrationSet, handbook: CalibrationHandbook, embedder: Embedder) -> None:
        index = {pid: i for i, pid in enumerate(handbook.ids)}
        questions = calibration.questions
        self.texts = [q.text for q in questions]
        self.vectors = handbook.query_vectors(self.texts, embedder)
        self.right = np.asarray([index[q.passage or ""] for q in questions])
        self.native = np.asarray(
            [handbook.languages[i] == q.language for i, q in zip(self.right, questions, strict=True)]
        )
        self.groups = [q.passage or "" for q in questions]
        counts = {lang: handbook.languages.count(lang) for lang in handbook.means}
        self.means = {lang: m for lang, m in handbook.means.items() if counts[lang] >= MIN_CHUNKS_PER_LANGUAGE}
        self.detected = [detect_language(text) for text in self.texts]  # as retrieval centres by it
        self.handbook = handbook
        self.plain = _ranks(self.vectors @ handbook.vectors.T)

    def reciprocal_ranks(self, centring: float) -> np.ndarray:
        """(weights of the grid, questions): each question's reciprocal rank per plain-list weight."""
        plain_only = _reciprocal_ranks(_share(self.plain), self.right)
        centred = np.asarray([centring > 0 and lang in self.means for lang in self.detected])
        if not centred.any():
            return np.repeat(plain_only[None, :], len(GRID), axis=0)
        h = self.handbook
        listed = np.asarray([lang in self.means for lang in h.languages])  # the partitions searched
        passage_means = np.stack([self.means.get(lang, np.zeros_like(h.vectors[0])) for lang in h.languages])
        query_means = np.stack([self.means.get(lang, np.zeros_like(h.vectors[0])) for lang in self.detected])
        moved = self.vectors - centring * query_means
        scores = np.where(listed[None, :], moved @ (h.vectors - centring * passage_means).T, -np.inf)
        ranks = _ranks(scores)
        ranks = np.where(listed[None, :], ranks, LEG_DEPTH + 1)
        rows = []
        for weight in GRID:
            fused = _share(ranks) + _share(self.plain, weight)
            rows.append(np.where(centred, _reciprocal_ranks(fused, self.right), plain_only))
        return np.stack(rows)


def _choose(scores: np.ndarray, reference: RetrievalWeights) -> tuple[int, int]:
    """The best pair of ``scores`` (centring, weight); of tied pairs, the one nearest ``reference``."""
    best = scores.max()
    tied = zip(*np.nonzero(np.abs(scores - best) <= 1e-12), strict=True)
    return min(
        ((int(a), int(w)) for a, w in tied),
        key=lambda aw: (abs(GRID[aw[0]] - reference.centring) + abs(GRID[aw[1]] - reference.vector_weight), aw),
    )


def _index(weights: RetrievalWeights) -> tuple[int, int] | None:
    """Where ``weights`` sit on the grid (None: off it)."""
    at = [int(np.argmin([abs(g - v) for g in GRID])) for v in (weights.centring, weights.vector_weight)]
    on = all(abs(GRID[i] - v) < 1e-9 for i, v in zip(at, (weights.centring, weights.vector_weight), strict=True))
    return (at[0], at[1]) if on else None


def _figures(rr: np.ndarray, native: np.ndarray) -> dict[str, float | None]:
    """Mean reciprocal rank over every question, same-language ones and cross-language ones."""

    def mean(values: np.ndarray) -> float | None:
        return round(float(values.mean()), 4) if len(values) else None

    return {"all": mean(rr), "native": mean(rr[native]), "cross_language": mean(rr[~native])}


def fit_retrieval(
    calibration: CalibrationSet, handbook: CalibrationHandbook, embedder: Embedder, reference: RetrievalWeights
) -> tuple[RetrievalWeights, Decision]:
    """The fitted retrieval numbers of ``embedder``'s model (``reference``: the values a tie goes
    nearest to, the model's shipped ones), and the policy entry holding them with their report."""
    asked = _Asked(calibration, handbook, embedder)
    rr = np.stack([asked.reciprocal_ranks(centring) for centring in GRID])  # (centring, weight, question)
    scores = rr.mean(axis=2)
    a, w = _choose(scores, reference)
    chosen = RetrievalWeights(GRID[a], GRID[w])
    groups = len(set(asked.groups))
    held_out = None
    if min(FOLDS, groups) >= 2:
        picked = np.zeros(rr.shape[2])
        per_fold = []
        for train, test in GroupKFold(n_splits=min(FOLDS, groups)).split(picked, groups=asked.groups):
            fa, fw = _choose(rr[:, :, train].mean(axis=2), reference)
            picked[test] = rr[fa, fw, test]
            per_fold.append([GRID[fa], GRID[fw]])
        held_out = {"mrr": round(float(picked.mean()), 4), "chosen_per_fold": per_fold}
    compared = {"chosen": chosen, "reference": reference, "neutral": NEUTRAL}
    report = {
        "grid": {"centring": list(GRID), "vector_weight": list(GRID)},
        "scores": [[round(float(x), 4) for x in row] for row in scores],  # rows: centring; columns: weight
        "chosen": {"centring": chosen.centring, "vector_weight": chosen.vector_weight},
        "reference": {"centring": reference.centring, "vector_weight": reference.vector_weight},
        "questions": {
            "counted": len(asked.texts),
            "native": int(asked.native.sum()),
            "cross_language": int((~asked.native).sum()),
        },
        "mrr": {
            name: _figures(rr[at[0], at[1]], asked.native)
            for name, weights in compared.items()
            if (at := _index(weights)) is not None
        },
        "held_out": held_out or {},
        "rules": {
            "score": "mean reciprocal rank of each question's passage in the fused meaning lists",
            "tie": "the pair nearest the reference (the model's shipped values, else the neutral ones)",
            "held_out": f"chosen on {FOLDS - 1} groups of passages, scored on the fifth's questions",
        },
    }
    return chosen, retrieval_decision(chosen, report)
