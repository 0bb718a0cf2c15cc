"""Where the configured model's calibration stands: shipped, calibrated, pending, running or failed.

A model without a policy searches by its words alone (``search/decisions/query.py``) until the
calibration task fits one; the admin says which of these it is, with a button that queues the task.
The task records here when it was queued by that button, when it started and how it ended. The
record lives in the cache every process shares (the worker writes it, the web reads it): it is
operational state, not data, and a lost record only loses that line of the status.
The policy's own first request (``search/decisions/policy.py``) marks the model as queued under
its own key, read here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.formats import date_format
from django.utils.translation import gettext as _

from config.numbers import CALIBRATION_ERROR_CHARS as ERROR_CHARS
from search.calibration.services import calibrate_if_missing
from search.decisions.policy import shipped_path
from search.models import DecisionPolicy

OFF, SHIPPED, CALIBRATED, QUEUED, RUNNING, FAILED, NONE = (
    "off",
    "shipped",
    "calibrated",
    "queued",
    "running",
    "failed",
    "none",
)


def _key(model: str) -> str:
    return f"decisions:calibration-status:{model}"


def _policy_queued_key(model: str) -> str:
    return f"decisions:calibrating:{model}"  # search/decisions/policy.py's ``_ask_for_calibration``


@dataclass(frozen=True)
class CalibrationStatus:
    model: str
    state: str
    at: datetime | None = None  # fitted, queued, started or failed at
    error: str = ""
    questions: Any = None  # labelled questions of the fit (calibrated)

    @property
    def can_run(self) -> bool:
        """Whether the admin offers to queue the calibration: the model has no policy yet."""
        return self.state in (QUEUED, RUNNING, FAILED, NONE)

    @property
    def text(self) -> str:
        when = date_format(timezone.localtime(self.at), "Y-m-d H:i") if self.at else ""
        words = _("Until then every page holding the query's words is a result, as in keyword search.")
        if self.state == OFF:
            return _("(embeddings off: the words decide)")
        if self.state == SHIPPED:
            return _("Shipped with the application")
        if self.state == CALIBRATED:
            return _("Calibrated at %(when)s (%(questions)s labelled questions)") % {
                "when": when,
                "questions": self.questions if self.questions is not None else "?",
            }
        if self.state == RUNNING:
            return _("RUNNING since %(when)s: this model has no policy yet.") % {"when": when} + " " + words
        if self.state == FAILED:
            return (
                _("FAILED at %(when)s: %(error)s. This model has no policy.") % {"when": when, "error": self.error}
                + " "
                + words
            )
        if self.state == QUEUED:
            queued = _("PENDING: queued at %(when)s, not yet run.") % {"when": when} if when else ""
            return (queued or _("PENDING: queued, not yet run.")) + " " + words
        return _("NONE YET: this model has no policy and its calibration is not queued.") + " " + words


def calibration_status(model: str) -> CalibrationStatus:
    """The calibration state of ``model`` (the configured one: ``active_model_name``)."""
    if not model:
        return CalibrationStatus(model, OFF)
    row = DecisionPolicy.readable().filter(model=model).first()
    if row is not None and row.decisions:
        questions = row.report.get("calibration_set", {}).get("questions")
        return CalibrationStatus(model, CALIBRATED, row.fitted_at, questions=questions)
    if shipped_path(model).is_file():
        return CalibrationStatus(model, SHIPPED)
    record = cache.get(_key(model))
    if isinstance(record, dict) and record.get("state") in (QUEUED, RUNNING, FAILED):
        return CalibrationStatus(
            model, record["state"], parse_datetime(record.get("at") or ""), str(record.get("error") or "")
        )
    if cache.get(_policy_queued_key(model)):
        return CalibrationStatus(model, QUEUED)
    return CalibrationStatus(model, NONE)


def _record(model: str, state: str, error: str = "") -> None:
    record = {"state": state, "at": timezone.now().isoformat(), "error": error[:ERROR_CHARS]}
    cache.set(_key(model), record, timeout=None)


def calibration_queued(model: str) -> None:
    _record(model, QUEUED)


def calibration_failed(model: str, error: str) -> None:
    _record(model, FAILED, error)


def calibrate_recorded(model: str) -> bool:
    """``calibrate_if_missing(model)``, its start and its end recorded for the admin: a failure is
    kept with its message and time (and raised again), a success or a no-op clears the record."""
    _record(model, RUNNING)
    try:
        fitted = calibrate_if_missing(model)
    except Exception as exc:
        calibration_failed(model, f"{type(exc).__name__}: {exc}")
        raise
    cache.delete(_key(model))
    return fitted
