"""Refit the answer decision of the configured model with what its readers and editors taught.

The labels (``search/calibration/reader_labels.py``) join the material the current policy was fitted on — the
shipped material and the company's own ``--extra`` files its report names — and only the answer
decision is refitted (the others keep their fit: the labels say which sentences answer, nothing else).

**Safety check.** A batch of wrong labels that agree (several readers, or a careless editor) must not
ruin answers. The current and the new answer decision are both measured on the SHIPPED calibration
material, which no label can change: the balanced accuracy of the ``answer`` threshold (answerable
questions answered, unanswerable ones declined), and the ``sure`` threshold's precision and coverage
(answerable questions answered sure, and right). The new decision is kept only if none of the three is
worse than the current one's by more than its own sampling error there — one binomial standard error
of the current figure over the questions it is a share of: a drop within it is noise, a drop beyond it
is the labels. The report keeps both sets of figures and the verdict.

**Rollback.** An accepted refit keeps the decisions and report it replaced in ``previous``, with the
digest of what it wrote: ``roll_back`` restores them while that refit still serves (a later
``manage.py calibrate`` is not undone by it). Either way saving the row makes every process read
the policy again (``core/fitted.py``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from search.calibration.answer_fit import _questions, fit_answer_decision
from search.calibration.calibration_set import CalibrationSet, calibration_set
from search.calibration.query_fit import CalibrationHandbook, calibration_handbook
from search.calibration.reader_labels import ReaderMaterial, reader_material
from search.decisions.answer import ANSWER, SURE
from search.decisions.policy import Decision, decisions_from_json, forget, policy_for
from search.embedding.embedders import Embedder
from search.embedding.model_switch import query_embedder
from search.models import DecisionPolicy

logger = logging.getLogger(__name__)

FIGURES = ("balanced_accuracy", "sure_precision", "sure_coverage")


def _digest(decisions: Mapping[str, Any]) -> str:
    return hashlib.sha256(json.dumps(decisions, sort_keys=True).encode()).hexdigest()[:16]


def measured(
    decision: Decision, material: CalibrationSet, handbook: CalibrationHandbook, embedder: Embedder
) -> dict[str, Any]:
    """``decision``'s figures on ``material``: each question's best unit by the decision decides it."""
    answerable = unanswerable = answered = declined = sure = sure_right = sure_answerable = 0
    for q in _questions(material, handbook, embedder):
        if not q.thresholded:  # known only by wrong answers: neither answerable nor unanswerable
            continue
        best = max(
            zip(q.units, q.labels, strict=True),
            key=lambda pair: decision.logit(pair[0].features().values()),
            default=None,
        )
        p = decision.probability(best[0].features().values()) if best is not None else 0.0
        is_answerable = q.question.passage is not None
        answerable += is_answerable
        unanswerable += not is_answerable
        answered += is_answerable and p >= decision.threshold(ANSWER)
        declined += (not is_answerable) and p < decision.threshold(ANSWER)
        if best is not None and SURE in decision.thresholds and p >= decision.threshold(SURE):
            sure += 1
            sure_right += best[1]
            sure_answerable += is_answerable
    return {
        "balanced_accuracy": round((answered / max(1, answerable) + declined / max(1, unanswerable)) / 2, 4),
        "answered": round(answered / max(1, answerable), 4),
        "declined": round(declined / max(1, unanswerable), 4),
        "sure_precision": round(sure_right / sure, 4) if sure else None,  # none answered sure: no precision
        "sure_coverage": round(sure_answerable / max(1, answerable), 4),
        "answerable": answerable,
        "unanswerable": unanswerable,
        "answered_sure": sure,
    }


def tolerance(figures: Mapping[str, Any]) -> dict[str, float]:
    """One binomial standard error of each figure over the questions it is a share of (a figure that
    could not be measured, as the precision of no sure answer, has none)."""
    counts = {
        "balanced_accuracy": min(figures["answerable"], figures["unanswerable"]),
        "sure_precision": figures["answered_sure"],
        "sure_coverage": figures["answerable"],
    }
    return {
        name: round(math.sqrt(float(figures[name]) * (1 - float(figures[name])) / max(1, counts[name])), 4)
        for name in FIGURES
        if figures[name] is not None
    }


def safety_check(before: Mapping[str, Any], after: Mapping[str, Any]) -> tuple[bool, dict[str, float], list[str]]:
    """Whether ``after`` is no worse than ``before`` beyond the tolerance; the tolerance; what got worse. A
    figure ``before`` could not measure constrains nothing; one ``after`` cannot measure is worse (the
    sure answers are gone: coverage says so too)."""
    allowed = tolerance(before)
    worse = [
        name for name in allowed if after[name] is None or float(after[name]) < float(before[name]) - allowed[name]
    ]
    return not worse, allowed, worse


def _company_extra(report: Mapping[str, Any]) -> list[Path]:
    """The ``--extra`` files the current policy was fitted with, while they are still there."""
    named = report.get("calibration_set", {}).get("extra", []) if isinstance(report, Mapping) else []
    return [Path(p) for p in named if isinstance(p, str) and Path(p).is_file()]


def candidate_fit(
    embedder: Embedder, taught: ReaderMaterial, current: Decision, extra: list[Path] | None = None
) -> tuple[Decision, dict[str, Any]]:
    """The answer decision fitted on the shipped material, ``extra`` files and ``taught``, and what the
    safety check says of it against ``current`` (nothing stored)."""
    fitted_on = taught.merged(calibration_set(extra or []))
    new = fit_answer_decision(fitted_on, calibration_handbook(fitted_on, embedder), embedder)
    shipped = calibration_set()
    shipped_handbook = calibration_handbook(shipped, embedder)
    before = measured(current, shipped, shipped_handbook, embedder)
    after = measured(new, shipped, shipped_handbook, embedder)
    accepted, allowed, worse = safety_check(before, after)
    return new, {
        "shipped_material": {"before": before, "after": after, "tolerance": allowed, "worse": worse},
        "thresholds": {"before": dict(current.thresholds), "after": dict(new.thresholds)},
        "accepted": accepted,
        "rule": "kept only if no shipped-material figure drops by more than one standard error of the current one",
        "calibration_set": {"digest": fitted_on.digest(), **fitted_on.counts()},
    }


def refit_from_readers(embedder: Embedder | None = None, material: ReaderMaterial | None = None) -> dict[str, Any]:
    """Refit the configured model's answer decision with its readers' labels; store it if the safety
    check accepts it. Returns the fit report (also stored in the policy's report when accepted)."""
    started = time.monotonic()
    embedder = embedder or query_embedder()
    if embedder is None:
        return {"accepted": False, "reason": "embeddings are off: no answer decision to refit"}
    model = embedder.model_name
    forget(model)  # read now: a change that bypassed the save signal may be a minute old here
    current = policy_for(model)
    if current is None or current.get(ANSWER) is None:
        return {"accepted": False, "reason": f"{model} has no policy yet: `manage.py calibrate` fits it first"}
    taught = material if material is not None else reader_material()
    report: dict[str, Any] = {"labels": taught.report(), "fitted_at": timezone.now().isoformat(timespec="seconds")}
    if not (taught.questions or taught.unanswerable or taught.rejected):
        return report | {"accepted": False, "reason": "no label teaches yet"}
    new, figures = candidate_fit(embedder, taught, current.decisions[ANSWER], _company_extra(current.report))
    accepted = figures["accepted"]
    report |= figures | {"seconds": round(time.monotonic() - started, 1)}
    if accepted:
        _store(model, new, report)
    worse = report["shipped_material"]["worse"]
    logger.info("answer decision of %s refitted from readers: %s", model, "kept" if accepted else f"refused ({worse})")
    return report


@transaction.atomic
def _store(model: str, new: Decision, report: dict[str, Any]) -> None:
    row = DecisionPolicy.objects.select_for_update().filter(model=model).first()
    if row is None or row.format_version != DecisionPolicy.FORMAT:
        # Serving the shipped policy (none stored, or one in a format no longer read): the refit is
        # written over a copy of it.
        shipped = policy_for(model)
        assert shipped is not None
        row = row or DecisionPolicy(model=model)
        row.decisions = {k: d.as_json() for k, d in shipped.decisions.items()}
        row.report = dict(shipped.report)
    decisions = dict(row.decisions) | {ANSWER: new.as_json()}
    row.previous = {"decisions": row.decisions, "report": row.report, "replaced": _digest(decisions)}
    row.decisions = decisions
    row.report = dict(row.report) | {"readers": report}
    row.save()


class RollbackError(ValueError):
    """Nothing to roll back to (the message says why)."""


@transaction.atomic
def roll_back(row: DecisionPolicy) -> DecisionPolicy:
    """Restore the decisions the last refit from readers replaced, while that refit still serves."""
    row = DecisionPolicy.objects.select_for_update().get(pk=row.pk)
    previous = row.previous or {}
    if not previous.get("decisions"):
        raise RollbackError(f"{row.model}: no earlier fit to roll back to")
    if previous.get("replaced") != _digest(row.decisions):
        raise RollbackError(f"{row.model}: refitted since; the earlier fit is no longer the one before it")
    decisions_from_json(previous["decisions"])  # a stored body that no longer reads is not restored
    row.decisions = previous["decisions"]
    row.report = dict(previous.get("report") or {}) | {"rolled_back_at": timezone.now().isoformat(timespec="seconds")}
    row.previous = {}
    row.save()
    return row
