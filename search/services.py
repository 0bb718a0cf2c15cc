"""Write-side helpers for the index: enqueueing, sweeping, waiting."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import QuerySet
from kombu.exceptions import OperationalError

from core.queues import BULK, GROUP_SIZE, enqueue, enqueue_grouped, enqueue_queue
from handbook.models import Page
from search.embedding.embedders import get_embedder
from search.embedding.model_switch import query_embedder
from search.indexing.pipeline import page_reindex, pages_needing_index, pages_reindex
from search.indexing.unit_vectors import page_units_embed, pages_needing_units, pages_units_embed
from search.lexicon import word_translation as lexicon
from search.models import IndexState
from search.retrieval.crosslang import language_stats, means_cache_key
from search.statistics.term_statistics import refresh_lexeme_stats

logger = logging.getLogger(__name__)

REINDEX_PAGE = "search.tasks.reindex_page"
REINDEX_PAGES = "search.tasks.reindex_pages"
EMBED_UNITS = "search.tasks.embed_units"


def index_enqueue_page(page: Page, *, queue: str | None = None) -> None:
    """Queue a reindex of the page's published revision once the transaction commits.

    On the interactive queue (an editor's save) unless ``queue`` or ``bulk_work()`` says bulk;
    bulk reindexes are gathered into groups of pages (``core.queues.enqueue_grouped``).
    """
    page_id, revision_id = page.pk, page.published_revision_id
    queue = queue or enqueue_queue()
    IndexState.objects.update_or_create(page=page, defaults={"status": IndexState.Status.PENDING})
    if queue == BULK:
        transaction.on_commit(lambda: enqueue_grouped(REINDEX_PAGES, page_id))
    else:
        transaction.on_commit(lambda: _send_reindex(page_id, revision_id, queue))


def _send_reindex(page_id: int, revision_id: int | None, queue: str) -> None:
    """Enqueue, never failing the save: with the broker down the sweep heals it later."""
    try:
        enqueue(REINDEX_PAGE, page_id, revision_id, queue=queue)
    except OperationalError as exc:  # the broker (Redis) is unreachable
        logger.error("could not enqueue reindex of page %s (left pending for the sweep): %s", page_id, exc)


def index_enqueue_pages(pages: QuerySet[Page]) -> int:
    """Queue reindexes of the pages on the bulk queue, in groups (reindex --all, sweeps, admin actions)."""
    ids = list(pages.order_by("id").values_list("id", flat=True))
    for start in range(0, len(ids), GROUP_SIZE):
        enqueue(REINDEX_PAGES, ids[start : start + GROUP_SIZE], queue=BULK)
    return len(ids)


def index_pages_bulk(page_ids: list[int]) -> dict[str, int]:
    """Reindex a group of pages, then store the answer units of those indexed; {status: pages}."""
    results = pages_reindex(page_ids)
    indexed = [page_id for page_id, result in results.items() if result.status == "indexed"]
    if indexed and get_embedder() is not None:
        pages_units_embed(indexed)
    counts: dict[str, int] = {}
    for result in results.values():
        counts[result.status] = counts.get(result.status, 0) + 1
    return counts


def index_sweep() -> int:
    """Heal lost or failed tasks: enqueue every page whose index isn't current."""
    refresh_lexeme_stats()  # keyword IDF follows the corpus even when pages change in bulk
    lexicon_enqueue_if_stale()
    count = index_enqueue_pages(pages_needing_index())
    if count:
        logger.info("sweep: re-enqueued %d pages", count)
    units = 0
    for page_id in pages_needing_units().values_list("id", flat=True).iterator():
        units_enqueue(page_id)
        units += 1
    if units:
        logger.info("sweep: queued the answer units of %d pages", units)
    return count


def units_enqueue(page_id: int) -> None:
    """Queue the storing of a page's answer-unit vectors (bulk queue); a broker outage is left to the sweep."""
    if get_embedder() is None:  # embeddings off: Ask compares units by words only
        return
    try:
        enqueue(EMBED_UNITS, page_id)
    except OperationalError as exc:
        logger.warning("could not queue the answer units of page %s (left for the sweep): %s", page_id, exc)


def pages_without_units(page_ids: list[int]) -> set[int]:
    """Of these pages, those indexed but whose answer-unit vectors are not stored yet."""
    return set(pages_needing_units().filter(id__in=page_ids).values_list("id", flat=True))


def units_embed_inline(page: Page) -> None:
    """Store one page's answer-unit vectors in this process (no worker running)."""
    page_units_embed(page_id=page.pk)


def lexicon_enqueue_if_stale() -> bool:
    """Queue a rebuild of the word-translation vocabulary when the handbook moved on."""
    embedder = query_embedder()
    if embedder is None or not lexicon.lexicon_is_stale(embedder.model_name):
        return False
    return lexicon_enqueue()


def lexicon_enqueue() -> bool:
    """Queue a build of the word-translation vocabulary; it runs after the tasks already queued."""
    if not settings.SEARCH_WORD_TRANSLATION:
        return False
    try:
        enqueue("search.tasks.refresh_lexicon")
    except Exception as exc:  # broker down: the next sweep tries again
        logger.warning("could not queue the lexicon rebuild: %s", exc)
        return False
    return True


def lexicon_build(progress=None) -> dict[str, int]:
    """Build the word-translation vocabulary now, with the serving query embedder."""
    embedder = query_embedder()
    if embedder is None:
        return {}
    return lexicon.build_lexicon(embedder, progress=progress) or {}


# --- what --wait and `manage.py ready` wait for besides each page's own work (handbook/page_work.py)


def term_statistics_up_to_date(progress=None) -> str:
    """Keyword IDF recounted over every scope, as the sweep does."""
    return f"keyword statistics recounted ({refresh_lexeme_stats()} rows)"


def lexicon_up_to_date(progress=None) -> str:
    """The word-translation vocabulary built here if the pages moved on since its last build (only
    new words are embedded; a build a worker is running is waited for, not repeated)."""
    embedder = query_embedder()
    if embedder is None:
        return "vocabulary: none (embeddings are off)"
    if not settings.SEARCH_WORD_TRANSLATION:
        return "vocabulary: none (SEARCH_WORD_TRANSLATION is off)"
    if not lexicon.lexicon_needs_build(embedder.model_name):
        counts = lexicon.build_lexicon(embedder, scopes=[]) or {}  # nothing to recount: the stored counts
        return f"vocabulary current ({_words(counts)})"
    counts = lexicon.build_lexicon(embedder, progress=progress) or {}
    new = (lexicon._version() or {}).get("new_words", 0)
    return f"vocabulary built ({_words(counts)}; {new} new word vectors)"


def _words(counts: dict[str, int]) -> str:
    found = ", ".join(f"{language}: {n} words" for language, n in sorted(counts.items()))
    return found or "no language has enough text"


def language_means_up_to_date(progress=None) -> str:
    """The language means of the cross-language list counted afresh (a search during the load may
    have cached them from half the vectors)."""
    embedder = query_embedder()
    if embedder is None:
        return "language means: none (embeddings are off)"
    cache.delete(means_cache_key(embedder.model_name))
    stats = language_stats(embedder.model_name)
    found = ", ".join(f"{lang}: {n} chunks" for lang, (_mean, n) in sorted(stats.items()))
    return f"language means counted ({found or 'fewer than two languages with enough chunks'})"


def pages_not_indexed(page_ids: list[int]) -> set[int]:
    """Of these pages, those whose index is missing, stale, failed or of another model."""
    return set(pages_needing_index().filter(id__in=page_ids).values_list("id", flat=True))


def index_page_inline(page: Page) -> None:
    """Index one page in this process (no worker running)."""
    page_reindex(page_id=page.pk, revision_id=page.published_revision_id)
