"""Generate the summary of a page's published revision."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import IntegrityError, transaction
from kombu.exceptions import OperationalError

from config.numbers import STORED_ERROR_CHARS
from core.llm import LLMError, LLMUnavailable
from core.queues import enqueue
from handbook.markdown import markdown_to_text
from handbook.models import Page
from summaries.generate import summarise_llm
from summaries.learnt import current_scorer, summarise_learnt
from summaries.models import Summary, SummaryPick
from summaries.scorer_fit import refit_enqueue
from summaries.selectors import pages_without_current_summary, source_hash, summary_method

logger = logging.getLogger(__name__)


def summary_generate(
    *, page_id: int, revision_id: int | None, force: bool = False, retry_unavailable: bool = False
) -> Summary | None:
    """Idempotent: skips when a ready summary for the same source text and method exists.

    Returns None when the page is gone, unpublished, or the revision is stale.
    Provider errors are recorded and fall back to an extractive summary; the
    LLM failure is kept on a ``failed`` row so admins can see why. With
    ``retry_unavailable`` an unreachable provider is re-raised instead, so the
    task can retry with backoff before falling back.
    """
    page = Page.objects.filter(pk=page_id).select_related("published_revision").first()
    if page is None or not page.is_published or page.deleted_at is not None or page.is_template:
        return None
    if revision_id is not None and page.published_revision_id != revision_id:
        return None  # a newer revision was published; its own task will summarise it
    revision = page.published_revision
    assert revision is not None
    digest = source_hash(revision.title, revision.body)
    method = summary_method()
    existing = Summary.objects.filter(page=page, source_hash=digest, method=method, status=Summary.Status.READY).first()
    scorer = current_scorer()
    # An extractive summary chosen with other weights than those in use now is chosen again.
    if existing and not force and (method == Summary.Method.LLM or existing.model == scorer.label):
        return existing

    text = markdown_to_text(revision.body)
    if method == Summary.Method.LLM:
        try:
            result = summarise_llm(title=revision.title, text=text, language=page.language)
            return _store(page, revision, Summary.Method.LLM, result.text, result.key_points, digest)
        except LLMUnavailable as exc:
            _store_failure(page, revision, digest, str(exc))
            if retry_unavailable:
                raise
            logger.warning("LLM unavailable for page %s summary, using extractive: %s", page_id, exc)
        except LLMError as exc:
            logger.warning("LLM summary of page %s failed: %s", page_id, exc)
            _store_failure(page, revision, digest, str(exc))
    extractive = summarise_learnt(
        text, language=page.language, title=revision.title, markdown=revision.body, scorer=scorer
    )
    return _store(
        page, revision, Summary.Method.EXTRACTIVE, extractive.text, extractive.key_points, digest, label=scorer.label
    )


def _store(page, revision, method, text, key_points, digest, label=""):
    # An extractive summary names the weights that chose it ("" for the shipped ones).
    model = settings.LLM_MODEL if method == Summary.Method.LLM else label
    defaults = {
        "revision": revision,
        "text": text,
        "key_points": key_points,
        "model": model,
        "status": Summary.Status.READY,
        "error": "",
    }
    try:
        with transaction.atomic():
            summary, _created = Summary.objects.update_or_create(
                page=page, source_hash=digest, method=method, defaults=defaults
            )
    except IntegrityError:  # a concurrent task wrote the same row first
        summary = Summary.objects.get(page=page, source_hash=digest, method=method)
    return summary


def _store_failure(page, revision, digest, error):
    Summary.objects.update_or_create(
        page=page,
        source_hash=digest,
        method=Summary.Method.LLM,
        defaults={
            "revision": revision,
            "status": Summary.Status.FAILED,
            "error": error[:STORED_ERROR_CHARS],
            "text": "",
        },
    )


def summary_enqueue(page: Page, *, queue: str) -> None:
    """Queue the summary of the page's published revision once the transaction commits.

    Independent of indexing: summaries read the page's text, never its chunks, so an
    embedding outage does not hold them up.
    """
    page_id, revision_id = page.pk, page.published_revision_id
    if SummaryPick.objects.filter(page_id=page_id).exists():
        # Its picks may teach no more (moved, edited) or again: the weights every summary is chosen
        # by are fitted again without waiting for the next pick.
        refit_enqueue()

    def send() -> None:
        try:
            enqueue("summaries.tasks.summarise_page", page_id, revision_id, queue=queue)
        except OperationalError as exc:  # broker down: the next change or reindex queues it again
            logger.error("could not enqueue the summary of page %s: %s", page_id, exc)

    transaction.on_commit(send)


def pages_unsummarised(page_ids: list[int]) -> set[int]:
    return set(pages_without_current_summary(Page.objects.filter(id__in=page_ids)))


def summary_inline(page: Page) -> None:
    summary_generate(page_id=page.pk, revision_id=page.published_revision_id)
