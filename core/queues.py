"""The two Celery queues, and which one the enqueues of the current work go to.

``interactive``: the work one person waits for - the edited page's reindex and summary,
query translations. ``bulk``: imports, re-embedding everything (``reindex --all``), the
periodic sweep, the vocabulary rebuild, admin actions over many pages. Workers are
started for either (``celery -A config worker -Q interactive`` / ``-Q bulk``) or both
(no ``-Q``): a dedicated interactive worker keeps an editor's change searchable within
seconds while a bulk re-embed runs (README "Scaling out").

Code that saves many pages (imports) runs inside ``bulk_work()``: the reindexes its
saves enqueue go to the bulk queue, not ahead of editors, and work sent with
``enqueue_grouped`` is gathered into tasks of ``GROUP_SIZE`` items (an import's pages
share the embedder's batches).
"""

from __future__ import annotations

import contextlib
import importlib
import logging
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from celery import current_app
from kombu.exceptions import OperationalError

INTERACTIVE = "interactive"
BULK = "bulk"
QUEUES = (INTERACTIVE, BULK)

_enqueue_queue: ContextVar[str] = ContextVar("handbook_enqueue_queue", default=INTERACTIVE)
# Items gathered by enqueue_grouped() inside bulk_work(), by task; None outside.
_groups: ContextVar[dict[str, list[object]] | None] = ContextVar("handbook_enqueue_groups", default=None)
# Pages a bulk reindex task takes: enough for full embedding batches, few enough that a retry redoes little.
GROUP_SIZE = 16

logger = logging.getLogger(__name__)


def enqueue_queue() -> str:
    """The queue that page reindexes enqueued now go to."""
    return _enqueue_queue.get()


@contextlib.contextmanager
def bulk_work() -> Iterator[None]:
    """Enqueue the reindexes of saves made in this block on the bulk queue, gathered in groups.

    Groups not full when the block ends are queued then (an error inside included: the pages
    already saved are indexed). Nested blocks gather into the outermost one.
    """
    if _groups.get() is not None:
        yield
        return
    token = _enqueue_queue.set(BULK)
    groups_token = _groups.set({})
    try:
        yield
    finally:
        groups = _groups.get() or {}
        _groups.reset(groups_token)
        _enqueue_queue.reset(token)
        for task, items in groups.items():
            _send_group(task, items)


def enqueue_grouped(task: str, item: object) -> None:
    """Queue ``task([item, ...])`` on the bulk queue: inside ``bulk_work()`` with up to ``GROUP_SIZE``
    gathered items, elsewhere at once with this one."""
    groups = _groups.get()
    if groups is None:
        _send_group(task, [item])
        return
    items = groups.setdefault(task, [])
    items.append(item)
    if len(items) >= GROUP_SIZE:
        _send_group(task, items[:])
        items.clear()


def _send_group(task: str, items: list[object]) -> None:
    """Never fails the caller: with the broker down, the periodic sweep finds the work left pending."""
    if not items:
        return
    try:
        enqueue(task, items, queue=BULK)
    except OperationalError as exc:
        logger.error("could not enqueue %s of %d item(s) (left for the sweep): %s", task, len(items), exc)


def enqueue(task: str, *args: object, queue: str | None = None) -> None:
    """Queue the Celery task registered as ``task`` (its dotted name, ``"search.tasks.reindex_page"``).

    Services name tasks instead of importing them: tasks call services, never the reverse.
    The registered task is used (not ``send_task``), so eager mode and routes apply as to a call.
    """
    if task not in current_app.tasks:
        # Outside a worker, task modules are discovered lazily: importing one registers its tasks.
        importlib.import_module(task.rpartition(".")[0])
    options: dict[str, Any] = {"queue": queue} if queue else {}
    current_app.tasks[task].apply_async(args, **options)


def workers_available(timeout: float = 1.0) -> bool:
    """Whether any Celery worker answers a ping (the broker down counts as none)."""
    try:
        return bool(current_app.control.ping(timeout=timeout))
    except Exception:  # broker down: nobody will pick tasks up
        return False
