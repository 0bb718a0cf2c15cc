"""Fitted things: the numbers a fit wrote, with its report, read through one loader.

A fitted thing is a row a fit wrote — the decisions of an embedding model, Ask's quote ranker, the
summary sentence weights — whose model subclasses ``FittedThing``. ``current(kind, model, read)``
keeps one copy per process of what ``read(model)`` returns, and reads it again after the one change
signal: any fitted row saved or deleted clears this process's copies at once and, once its
transaction commits, moves the shared generation every process compares its copies with. A change
that bypasses the signal (a queryset ``update``) reaches every process within ``RELOAD_S``.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from django.core.cache import cache
from django.db import models, transaction
from django.db.models.signals import class_prepared, post_delete, post_save
from django.dispatch import receiver

logger = logging.getLogger(__name__)

T = TypeVar("T")

# How old a copy may grow when a change bypassed the signal, or the shared cache is down.
RELOAD_S = 60.0
_GENERATION = "fitted:generation"


class FittedThing(models.Model):
    """What every fitted row has: its kind, the format its numbers are written in, and its fit
    report. Rows per embedding model have a ``model`` field; a kind fitted once for every model
    leaves it out."""

    KIND: ClassVar[str] = ""
    # The shape of the stored numbers as the code reads them today. Raised with a change to that
    # shape, so that a row an older fit wrote is left unread (as if not fitted yet: the shipped
    # numbers serve until the next fit) instead of misread.
    FORMAT: ClassVar[int] = 1

    report = models.JSONField(default=dict)
    format_version = models.PositiveSmallIntegerField(
        default=1, editable=False, help_text="The format the fit wrote its numbers in."
    )

    class Meta:
        abstract = True

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.format_version = type(self).FORMAT  # what is written now is written in today's format
        super().save(*args, **kwargs)

    @classmethod
    def readable(cls) -> models.QuerySet[Any]:
        """The rows today's code reads: those written in its format."""
        return cls._default_manager.filter(format_version=cls.FORMAT)


_lock = threading.Lock()
_copies: dict[tuple[str, str], tuple[float, int | None, Any]] = {}


def _generation() -> int | None:
    try:
        return int(cache.get(_GENERATION) or 0)
    except Exception:  # the shared cache is down: copies live RELOAD_S
        return None


def current(kind: str, model: str, read: Callable[[str], T]) -> T:
    """``read(model)``, as this process last read it while no fitted thing has changed since."""
    now, generation = time.monotonic(), _generation()
    found = _copies.get((kind, model))
    if found is not None and now - found[0] < RELOAD_S and generation in (None, found[1]):
        return found[2]
    value = read(model)
    with _lock:
        _copies[(kind, model)] = (now, generation, value)
    return value


def previous(kind: str, model: str) -> tuple[bool, Any]:
    """Whether this process holds a copy of ``kind`` for ``model``, and the copy (to log only changes)."""
    found = _copies.get((kind, model))
    return (found is not None, found[2] if found is not None else None)


def forget(kind: str | None = None, model: str | None = None) -> None:
    """Read again at the next use, in this process: every kind, one kind, or one kind's model."""
    with _lock:
        for key in [k for k in _copies if kind in (None, k[0]) and model in (None, k[1])]:
            del _copies[key]


def changed() -> None:
    """The change signal: this process reads every fitted thing again now, every process once committed."""
    forget()
    transaction.on_commit(_advance)


def _advance() -> None:
    forget()  # a read between the save and the commit saw the rows from before
    try:
        if not cache.add(_GENERATION, 1, timeout=None):
            cache.incr(_GENERATION)
    except Exception as exc:  # the shared cache is down: other processes read it again within RELOAD_S
        logger.warning("fitted things: generation not advanced: %s", exc)


@receiver(class_prepared, dispatch_uid="fitted_watched")
def _watch(sender: Any, **_kwargs: Any) -> None:
    """Each concrete fitted model signals its own changes: other models' saves never reach here."""
    if issubclass(sender, FittedThing) and not sender._meta.abstract:
        label = sender._meta.label
        post_save.connect(_row_changed, sender=sender, dispatch_uid=f"fitted_saved:{label}")
        post_delete.connect(_row_changed, sender=sender, dispatch_uid=f"fitted_deleted:{label}")


def _row_changed(**_kwargs: Any) -> None:
    changed()
