"""Reads of summaries; every read that reaches a user goes through visible pages."""

from __future__ import annotations

import hashlib
from typing import Any

from django.db.models import QuerySet

from handbook.models import Page, Revision
from summaries.models import Summary


def source_hash(title: str, body: str) -> str:
    return hashlib.sha256(f"{title}\n\n{body}".encode()).hexdigest()


def summary_method() -> str:
    from search.llm import llm_configured

    return Summary.Method.LLM if llm_configured() else Summary.Method.EXTRACTIVE


def summary_for_page(*, page: Page, user: Any) -> tuple[Summary | None, bool]:
    """(summary, is_current) for a page the user may read; (None, False) otherwise.

    A summary of an older revision is returned with is_current=False so the
    page can say it is being updated rather than present it as current.
    """
    if not Page.objects.visible_to(user).filter(pk=page.pk).exists():
        return None, False
    revision = page.published_revision
    if revision is None:
        return None, False
    current_hash = source_hash(revision.title, revision.body)
    ready = Summary.objects.filter(page=page, status=Summary.Status.READY)
    current = ready.filter(source_hash=current_hash).order_by("-updated_at").first()
    if current:
        return current, True
    return ready.order_by("-updated_at").first(), False


def summaries_for_pages(page_ids: list[int]) -> dict[int, Summary]:
    """Current ready summaries keyed by page id; callers pass only ids they may show."""
    found: dict[int, Summary] = {}
    pages = Page.objects.filter(id__in=page_ids).select_related("published_revision")
    hashes = {
        p.pk: source_hash(p.published_revision.title, p.published_revision.body) for p in pages if p.published_revision
    }
    for summary in Summary.objects.filter(page_id__in=hashes, status=Summary.Status.READY).order_by("updated_at"):
        if hashes.get(summary.page_id) == summary.source_hash:
            found[summary.page_id] = summary
    return found


def pages_without_current_summary(pages: QuerySet[Page]) -> list[int]:
    """Ids of published pages with no ready or failed summary for their published text."""
    missing = []
    for page_id, title, body in pages.published().values_list(
        "id", "published_revision__title", "published_revision__body"
    ):
        # An LLM failure falls back to an extractive summary: any ready method counts.
        done = Summary.objects.filter(page_id=page_id, source_hash=source_hash(title, body), status="ready")
        if not done.exists():
            missing.append(page_id)
    return missing


def revision_is_current(page_id: int, revision_id: int | None) -> bool:
    return Revision.objects.filter(pk=revision_id, page__published_revision_id=revision_id, page_id=page_id).exists()
