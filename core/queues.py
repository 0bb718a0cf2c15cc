"""The two Celery queues, and which one the enqueues of the current work go to.

``interactive``: the work one person waits for - the edited page's reindex and summary,
query translations. ``bulk``: imports, re-embedding everything (``reindex --all``), the
periodic sweep, the vocabulary rebuild, admin actions over many pages. Workers are
started for either (``celery -A handbook worker -Q interactive`` / ``-Q bulk``) or both
(no ``-Q``): a dedicated interactive worker keeps an editor's change searchable within
seconds while a bulk re-embed runs (README "Scaling out").

Code that saves many pages (imports) runs inside ``bulk_work()``: the reindexes its
saves enqueue go to the bulk queue, not ahead of editors.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from contextvars import ContextVar

INTERACTIVE = "interactive"
BULK = "bulk"
QUEUES = (INTERACTIVE, BULK)

_enqueue_queue: ContextVar[str] = ContextVar("handbook_enqueue_queue", default=INTERACTIVE)


def enqueue_queue() -> str:
    """The queue that page reindexes enqueued now go to."""
    return _enqueue_queue.get()


@contextlib.contextmanager
def bulk_work() -> Iterator[None]:
    """Enqueue the reindexes of saves made in this block on the bulk queue."""
    token = _enqueue_queue.set(BULK)
    try:
        yield
    finally:
        _enqueue_queue.reset(token)


def enqueue(task: str, *args: object, queue: str | None = None) -> None:
    """Queue the Celery task registered as ``task`` (its dotted name, ``"search.tasks.reindex_page"``).

    Services name tasks instead of importing them: tasks call services, never the reverse.
    The registered task is used (not ``send_task``), so eager mode and routes apply as to a call.
    """
    from celery import current_app

    if task not in current_app.tasks:
        # Outside a worker, task modules are discovered lazily: importing one registers its tasks.
        importlib.import_module(task.rpartition(".")[0])
    options = {"queue": queue} if queue else {}
    current_app.tasks[task].apply_async(args, **options)


def workers_available(timeout: float = 1.0) -> bool:
    """Whether any Celery worker answers a ping (the broker down counts as none)."""
    from celery import current_app

    try:
        return bool(current_app.control.ping(timeout=timeout))
    except Exception:  # broker down: nobody will pick tasks up
        return False
