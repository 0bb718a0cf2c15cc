"""Celery tasks: thin wrappers that take ids (JSON) and call services."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

from config.numbers import EMBEDDING_MAX_RETRIES, EMBEDDING_RETRY_BACKOFF_MAX_S, EMBEDDING_RETRY_BACKOFF_S
from handbook.health import heartbeat_write
from handbook.models import Page
from search.ask.quote_learning import quote_ranker_fit
from search.calibration.reader_fit import refit_from_readers
from search.calibration.status import calibrate_recorded
from search.embedding.embedders import EmbeddingError
from search.indexing.pipeline import page_reindex
from search.indexing.unit_vectors import page_units_embed
from search.insights.logs import logs_purge
from search.retrieval.query_translation import translation_fetch
from search.services import index_enqueue_pages, index_pages_bulk, index_sweep, lexicon_build, units_enqueue

logger = logging.getLogger(__name__)

# Work that calls the embedder: an outage is retried with backoff, a killed worker's task runs again.
EMBEDDING_TASK: dict[str, Any] = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "autoretry_for": (EmbeddingError,),
    "retry_backoff": EMBEDDING_RETRY_BACKOFF_S,
    "retry_backoff_max": EMBEDDING_RETRY_BACKOFF_MAX_S,
    "retry_jitter": True,
    "max_retries": EMBEDDING_MAX_RETRIES,
}


@shared_task(bind=True, **EMBEDDING_TASK)
def reindex_page(self, page_id: int, revision_id: int | None = None) -> str:
    status = page_reindex(page_id=page_id, revision_id=revision_id).status
    if status == "indexed":
        units_enqueue(page_id)
    return status


@shared_task(**EMBEDDING_TASK)
def reindex_pages(page_ids: list[int]) -> dict[str, int]:
    """Reindex a group of pages (bulk loads, reindex --all) and store their answer units."""
    return index_pages_bulk(page_ids)


@shared_task(**EMBEDDING_TASK)
def embed_units(page_id: int) -> int:
    """Store the vectors of a page's answer units (after its reindex; bulk queue)."""
    return page_units_embed(page_id=page_id)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def reindex_space(space_id: int) -> int:
    return index_enqueue_pages(Page.objects.published().filter(space_id=space_id))


@shared_task(acks_late=True, reject_on_worker_lost=True)
def reindex_all() -> int:
    return index_enqueue_pages(Page.objects.published())


@shared_task
def sweep_index() -> int:
    """Re-enqueue pages whose index is missing, stale, failed or of another model."""
    return index_sweep()


@shared_task(acks_late=True, reject_on_worker_lost=True)
def refresh_lexicon() -> dict[str, int]:
    """Rebuild the word-translation vocabulary (only new words are embedded)."""
    return lexicon_build()


@shared_task
def worker_heartbeat() -> None:
    heartbeat_write()


@shared_task(acks_late=True, ignore_result=True)
def purge_old_logs() -> dict[str, int]:
    """Delete questions and recorded searches older than ASK_LOG_RETENTION_DAYS."""
    return logs_purge()


@shared_task(acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def fetch_query_translation(text: str, source: str, target: str, user_id: int | None = None) -> str:
    """The model's translation of a submitted query, for the next search of it (search never waits)."""
    return translation_fetch(text=text, source=source, target=target, user_id=user_id)


@shared_task(acks_late=True, ignore_result=True)
def refit_quote_ranker() -> None:
    """Ask's quote ranker learns again from the verified answers (``search/ask/quote_learning.py``)."""
    quote_ranker_fit()


@shared_task(acks_late=True, ignore_result=True)
def calibrate_model(model: str) -> bool:
    """Fit the decisions of ``model`` when it is the configured one and has no policy yet (its first use,
    the end of a model switch, the admin's button); ``manage.py calibrate`` refits on demand. Its start
    and a failure are recorded for the admin's index status."""
    return calibrate_recorded(model)


@shared_task(acks_late=True, ignore_result=True)
def refit_answer_from_readers() -> dict[str, Any]:
    """The answer decision learns again from readers' labels and verified answers, kept only when the
    shipped material says it is no worse (``search/calibration/reader_fit.py``)."""
    return refit_from_readers()
