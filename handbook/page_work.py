"""The work other apps do when a page changes, without this app knowing them.

Indexing (``search``) and summaries (``summaries``) each register here from their
``AppConfig.ready()``. A page change is announced once (``page_changed``) and every
registered reaction queues its own task, so one failing (an embedding outage) does
not stop the other. Commands that wait for the work (``load_corpus --wait``,
``import_markdown --wait``) ask the same registry what is still pending, and run it
in their own process when no worker is running.

Besides each page's own work, search and Ask read structures built from many pages at once
(keyword statistics, the word-translation vocabulary, the language means). They register here too
(``register_derived``), so that whoever waits for pages (``--wait``, ``manage.py ready``) also
waits for what those pages feed, instead of returning before the first answers are the ones every
later minute gives.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from core.queues import enqueue_queue


@dataclass(frozen=True)
class PageWork:
    name: str
    enqueue: Callable[[Any, str], None]  # (page, queue): queue the page's work once the transaction commits
    pending: Callable[[list[int]], set[int]]  # of these page ids, those whose work is not done yet
    run_inline: Callable[[Any], None]  # do a page's work in this process
    after_bulk: Callable[[], bool] | None = None  # once many pages changed (a corpus load); True if queued


@dataclass(frozen=True)
class Derived:
    """A structure built from many pages that search or Ask reads."""

    name: str
    # Bring it in line with the pages now, in this process; (progress(done, total)) -> what was done.
    bring_up_to_date: Callable[[Callable[[int, int], None] | None], str]


_registry: dict[str, PageWork] = {}
_derived: dict[str, Derived] = {}


def register(work: PageWork) -> None:
    _registry[work.name] = work


def registered() -> list[PageWork]:
    return list(_registry.values())


def register_derived(structure: Derived) -> None:
    _derived[structure.name] = structure


def derived() -> list[Derived]:
    """In the order registered: later ones may read earlier ones."""
    return list(_derived.values())


def page_changed(page: Any, *, queue: str | None = None) -> None:
    """Announce that a page's published content, place or readers changed."""
    queue = queue or enqueue_queue()
    for work in _registry.values():
        work.enqueue(page, queue)


def bulk_changed() -> list[str]:
    """Announce that many pages changed; the names of the follow-up work queued."""
    return [work.name for work in _registry.values() if work.after_bulk is not None and work.after_bulk()]


def pending(page_ids: list[int]) -> set[int]:
    left: set[int] = set()
    for work in _registry.values():
        left |= work.pending(page_ids)
    return left


def run_inline(pages: Iterable[Any], progress: Any = None) -> None:
    """Every registered work of each page, here (no worker is running)."""
    for page in pages:
        for work in _registry.values():
            if page.pk in work.pending([page.pk]):
                work.run_inline(page)
        if progress is not None:
            progress.update(1)


POLL_S = 0.5
POLL_PAGES_PER_S = 1_000  # pages checked per second of pause: a large import is checked less often


def wait_until_done(page_ids: list[int], *, timeout: float, progress: Any = None, poll: float = POLL_S) -> list[int]:
    """Block until no registered work is pending for these pages; the ids still pending.

    Each check reads every pending page (the summary check hashes its text), so with thousands
    pending the pause grows with them: the wait would otherwise take the cores the work needs.
    """
    deadline = time.monotonic() + timeout
    remaining = set(page_ids)
    done_before = 0
    while remaining and time.monotonic() < deadline:
        remaining = pending(sorted(remaining))
        done = len(page_ids) - len(remaining)
        if progress is not None and done > done_before:
            progress.update(done - done_before)
            done_before = done
        if remaining:
            time.sleep(max(poll, min(10 * poll, len(remaining) / POLL_PAGES_PER_S)))
    return sorted(remaining)
