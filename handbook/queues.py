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


def queue_of(request: object) -> str:
    """The queue a running task was taken from (a task it enqueues follows it); interactive if unknown."""
    delivery_info = getattr(request, "delivery_info", None) or {}
    routing_key = delivery_info.get("routing_key")
    return routing_key if routing_key in QUEUES else INTERACTIVE
