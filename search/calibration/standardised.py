"""Features standardised for fitting, and the fitted weights folded back onto the raw features.

A decision is stored over raw feature values (``search/decisions/policy.py``), so that deciding is
a few multiplications; the regressions are fitted on standardised ones (comparable scales for the
regularisation). One place does the round trip for every decision's fit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.linear_model import LogisticRegression


@dataclass(frozen=True)
class Standardised:
    mean: np.ndarray
    scale: np.ndarray

    @classmethod
    def of(cls, x: np.ndarray) -> Standardised:
        scale = x.std(axis=0)
        return cls(x.mean(axis=0), np.where(scale == 0, 1.0, scale))

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return (x - self.mean) / self.scale

    def raw(self, model: LogisticRegression) -> tuple[tuple[float, ...], float]:
        """The model's weights and intercept over the raw features."""
        weights = model.coef_[0] / self.scale
        intercept = float(model.intercept_[0] - (model.coef_[0] * self.mean / self.scale).sum())
        return tuple(float(w) for w in weights), intercept
