"""A policy: the fitted decisions of one embedding model, stored as data.

Each decision is a logistic model over named features — ``probability = σ(intercept + Σ wᵢ·xᵢ)`` —
and thresholds chosen by a rule its fitting code states (``search/calibration/``). Similarities
are a property of the embedding model (multilingual-e5 puts any two texts above 0.7, hosted
models put unrelated texts near 0), so a policy is fitted per model and serves only that model.

Where a policy comes from, first found:
1. the database (``DecisionPolicy``): what ``manage.py calibrate`` or the calibration task wrote
   for the configured model — a company's own labelled questions included;
2. the file shipped for the bundled model (``shipped/<model>.json``): a fresh install decides
   well from its first query, without a fit at start.

No policy: the callers behave safely (keyword coverage rules only) and say so
(``policy_state``). Read through the fitted-things loader (``core/fitted.py``): one copy per process,
read again once a fit is saved.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from celery import current_app
from django.core.cache import cache

from config.numbers import CALIBRATING_LOCK_TTL_S
from core import fitted
from search.models import DecisionPolicy

logger = logging.getLogger(__name__)

SHIPPED = Path(__file__).resolve().parent / "shipped"


@dataclass(frozen=True)
class Decision:
    """One fitted decision: weights over named features, and its thresholds by name."""

    features: tuple[str, ...]
    weights: tuple[float, ...]
    intercept: float
    thresholds: Mapping[str, float] = field(default_factory=dict)
    report: Mapping[str, Any] = field(default_factory=dict)

    def logit(self, values: Mapping[str, float]) -> float:
        """intercept + Σ wᵢ·xᵢ over the named feature values (a missing feature is an error)."""
        return self.intercept + sum(
            w * float(values[name]) for name, w in zip(self.features, self.weights, strict=True)
        )

    def probability(self, values: Mapping[str, float]) -> float:
        """σ(logit): the fitted probability."""
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, self.logit(values)))))

    def threshold(self, name: str) -> float:
        return float(self.thresholds[name])

    def as_json(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "weights": [round(w, 6) for w in self.weights],
            "intercept": round(self.intercept, 6),
            "thresholds": {k: round(float(v), 6) for k, v in self.thresholds.items()},
            "report": dict(self.report),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Decision:
        features = tuple(str(f) for f in data["features"])
        weights = tuple(float(w) for w in data["weights"])
        if len(features) != len(weights):
            raise ValueError(f"{len(features)} features but {len(weights)} weights")
        thresholds = {str(k): float(v) for k, v in dict(data.get("thresholds", {})).items()}
        return cls(features, weights, float(data["intercept"]), thresholds, dict(data.get("report", {})))


@dataclass(frozen=True)
class Policy:
    model: str
    decisions: Mapping[str, Decision]
    source: str  # "calibrated" (the database) or "shipped"
    report: Mapping[str, Any] = field(default_factory=dict)

    def get(self, name: str) -> Decision | None:
        return self.decisions.get(name)


def decisions_from_json(data: Mapping[str, Any]) -> dict[str, Decision]:
    return {str(name): Decision.from_json(body) for name, body in data.items()}


def shipped_path(model: str) -> Path:
    return SHIPPED / f"{re.sub(r'[^A-Za-z0-9.-]+', '-', model)}.json"


def _shipped(model: str) -> Policy | None:
    path = shipped_path(model)
    if not path.is_file():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("model") != model:
        logger.warning("%s is for %r, not %r: not used", path.name, data.get("model"), model)
        return None
    return Policy(model, decisions_from_json(data["decisions"]), "shipped", data.get("report", {}))


def shipped_policy(model: str) -> Policy | None:
    """The policy shipped for ``model``, read now (None when none is shipped)."""
    return _shipped(model)


def _stored(model: str) -> Policy | None:
    row = DecisionPolicy.readable().filter(model=model).first()
    if row is None or not row.decisions:
        return None
    return Policy(model, decisions_from_json(row.decisions), "calibrated", row.report)


def has_policy(model: str) -> bool:
    """Whether ``model`` has a policy, read now (not from this process's copy)."""
    return _stored(model) is not None or _shipped(model) is not None


def _read(model: str) -> Policy | None:
    """The calibrated policy, else the shipped one; asks for a calibration when there is neither."""
    had_copy, before = fitted.previous(DecisionPolicy.KIND, model)
    try:
        policy = _stored(model)
    except Exception as exc:  # the database is down: the shipped policy still decides
        logger.warning("decision policy of %s unreadable: %s", model, exc)
        policy = None
    policy = policy or _shipped(model)
    if policy is None and (not had_copy or before is not None):
        logger.warning(
            "no decision policy for embedding model %r: keyword rules decide until `manage.py calibrate` runs", model
        )
        _ask_for_calibration(model)
    return policy


def policy_for(model: str) -> Policy | None:
    """The policy of ``model`` (calibrated, else shipped), or None when it has none yet."""
    return fitted.current(DecisionPolicy.KIND, model, _read)


def _ask_for_calibration(model: str) -> None:
    """Queue the model's first calibration (once for every process: the cache key says it is queued)."""
    try:
        if cache.add(f"decisions:calibrating:{model}", 1, timeout=CALIBRATING_LOCK_TTL_S):
            current_app.send_task("search.tasks.calibrate_model", args=[model])
    except Exception as exc:  # no broker: `manage.py calibrate` still fits it
        logger.warning("could not queue the calibration of %s: %s", model, exc)


def forget(model: str | None = None) -> None:
    """Read the policy again at the next use, in this process (between tests; a saved fit does it itself)."""
    fitted.forget(DecisionPolicy.KIND, model)


def decision_for(model: str, name: str) -> Decision | None:
    policy = policy_for(model) if model else None
    return policy.get(name) if policy else None
