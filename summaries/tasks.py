"""Celery: thin wrapper over ``summary_generate``."""

from __future__ import annotations

from celery import shared_task

from config.numbers import SUMMARY_MAX_RETRIES, SUMMARY_RETRY_BACKOFF_MAX_S, SUMMARY_RETRY_BACKOFF_S
from core.llm import LLMUnavailable
from summaries.scorer_fit import summary_scorer_refit
from summaries.services import summary_generate


@shared_task(
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(LLMUnavailable,),
    retry_backoff=SUMMARY_RETRY_BACKOFF_S,
    retry_backoff_max=SUMMARY_RETRY_BACKOFF_MAX_S,
    retry_jitter=True,
    max_retries=SUMMARY_MAX_RETRIES,
)
def summarise_page(self, page_id: int, revision_id: int | None = None) -> str:
    # Retry an unreachable provider with backoff; on the last try fall back to extractive.
    last_try = self.request.retries >= (self.max_retries or 0)
    summary = summary_generate(page_id=page_id, revision_id=revision_id, retry_unavailable=not last_try)
    return summary.status if summary else "skipped"


@shared_task(acks_late=True, reject_on_worker_lost=True)
def regenerate_summary(page_id: int) -> str:
    """Admin action: a fresh summary of the current revision, even if one exists."""
    summary = summary_generate(page_id=page_id, revision_id=None, force=True)
    return summary.status if summary else "skipped"


@shared_task(acks_late=True, reject_on_worker_lost=True)
def refit_summary_scorer() -> str:
    """After an editor's pick: fit the sentence weights again from every pick that may teach."""
    fit = summary_scorer_refit()
    return "in use" if fit.in_use else "not in use"
