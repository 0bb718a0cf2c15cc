"""Write-side helpers for the index: enqueueing, sweeping, waiting."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet

from handbook.models import Page
from handbook.queues import BULK, enqueue_queue
from search.indexing import page_reindex, pages_needing_index
from search.models import IndexState

logger = logging.getLogger(__name__)


def index_enqueue_page(page: Page, *, queue: str | None = None) -> None:
    """Queue a reindex of the page's published revision once the transaction commits.

    On the interactive queue (an editor's save) unless ``queue`` or ``bulk_work()`` says bulk.
    """
    page_id, revision_id = page.pk, page.published_revision_id
    queue = queue or enqueue_queue()
    IndexState.objects.update_or_create(page=page, defaults={"status": IndexState.Status.PENDING})
    transaction.on_commit(lambda: _send_reindex(page_id, revision_id, queue))


def _send_reindex(page_id: int, revision_id: int | None, queue: str) -> None:
    """Enqueue, never failing the save: with the broker down the sweep heals it later."""
    from kombu.exceptions import OperationalError

    from search.tasks import reindex_page

    try:
        reindex_page.apply_async((page_id, revision_id), queue=queue)
    except OperationalError as exc:  # the broker (Redis) is unreachable
        logger.error("could not enqueue reindex of page %s (left pending for the sweep): %s", page_id, exc)


def index_enqueue_pages(pages: QuerySet[Page]) -> int:
    """Queue a reindex of each page on the bulk queue (reindex --all, sweeps, admin actions)."""
    from search.tasks import reindex_page

    count = 0
    for page_id, revision_id in pages.values_list("id", "published_revision_id").iterator():
        reindex_page.apply_async((page_id, revision_id), queue=BULK)
        count += 1
    return count


def index_sweep() -> int:
    """Heal lost or failed tasks: enqueue every page whose index isn't current."""
    from search.lexemes import refresh_lexeme_stats

    refresh_lexeme_stats()  # keyword IDF follows the corpus even when pages change in bulk
    lexicon_enqueue_if_stale()
    count = index_enqueue_pages(pages_needing_index())
    if count:
        logger.info("sweep: re-enqueued %d pages", count)
    return count


def lexicon_enqueue_if_stale() -> bool:
    """Queue a rebuild of the word-translation vocabulary when the handbook moved on."""
    from search.embedding_switch import query_embedder
    from search.lexicon import lexicon_is_stale

    embedder = query_embedder()
    if embedder is None or not lexicon_is_stale(embedder.model_name):
        return False
    return lexicon_enqueue()


def lexicon_enqueue() -> bool:
    """Queue a build of the word-translation vocabulary; it runs after the tasks already queued."""
    from search.tasks import refresh_lexicon

    if not settings.SEARCH_WORD_TRANSLATION:
        return False
    try:
        refresh_lexicon.delay()
    except Exception as exc:  # broker down: the next sweep tries again
        logger.warning("could not queue the lexicon rebuild: %s", exc)
        return False
    return True


def lexicon_build(progress=None) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Build the word-translation vocabulary now, with the serving query embedder."""
    from search.embedding_switch import query_embedder
    from search.lexicon import build_lexicon

    embedder = query_embedder()
    if embedder is None:
        return {}
    return build_lexicon(embedder, progress=progress)


def workers_available(timeout: float = 1.0) -> bool:
    from handbook.celery import app

    try:
        return bool(app.control.ping(timeout=timeout))
    except Exception:  # broker down: nobody will pick tasks up
        return False


def index_pages_inline(pages: Iterable[Page], progress=None) -> None:  # type: ignore[no-untyped-def]
    """Index in this process (no worker running), summaries included."""
    from summaries.services import summary_generate

    for page in pages:
        result = page_reindex(page_id=page.pk, revision_id=page.published_revision_id)
        if result.status in ("indexed", "pending"):
            summary_generate(page_id=page.pk, revision_id=page.published_revision_id)
        if progress is not None:
            progress.update(1)


def wait_until_indexed(page_ids: list[int], *, timeout: float, progress=None, poll: float = 0.5) -> list[int]:  # type: ignore[no-untyped-def]
    """Block until every page's index and summary are current; return the ids still not done."""
    from summaries.selectors import pages_without_current_summary

    deadline = time.monotonic() + timeout
    remaining = set(page_ids)
    done_before = 0
    while remaining and time.monotonic() < deadline:
        not_indexed = set(pages_needing_index().filter(id__in=remaining).values_list("id", flat=True))
        unsummarised = set(pages_without_current_summary(Page.objects.filter(id__in=remaining)))
        remaining = not_indexed | unsummarised
        done = len(page_ids) - len(remaining)
        if progress is not None and done > done_before:
            progress.update(done - done_before)
            done_before = done
        if remaining:
            time.sleep(poll)
    return sorted(remaining)
