"""Reads of summaries; every read that reaches a user goes through visible pages."""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

from django.db.models import QuerySet

from handbook.models import Page
from summaries.models import Summary


def source_hash(title: str, body: str) -> str:
    return hashlib.sha256(f"{title}\n\n{body}".encode()).hexdigest()


def summary_method() -> str:
    from core.llm import llm_configured

    return Summary.Method.LLM if llm_configured() else Summary.Method.EXTRACTIVE


class PageSummary(NamedTuple):
    """What a page shows as its summary.

    ``summary`` is only ever the summary of the published text: text an editor
    removed must not stay on the page in an older summary. ``updating`` says the
    published text changed since the last ready summary, which is on its way.
    """

    summary: Summary | None
    updating: bool


def summary_for_page(*, page: Page, user: Any) -> PageSummary:
    """The current summary of a page the user may read; (None, False) otherwise.

    No older summary is ever returned: until the published revision's summary is
    ready the page says it is being updated (``updating``) instead.
    """
    if not Page.objects.visible_to(user).filter(pk=page.pk).exists():
        return PageSummary(None, False)
    revision = page.published_revision
    if revision is None:
        return PageSummary(None, False)
    ready = Summary.objects.filter(page=page, status=Summary.Status.READY)
    current = ready.filter(source_hash=source_hash(revision.title, revision.body)).order_by("-updated_at").first()
    if current:
        return PageSummary(current, False)
    return PageSummary(None, ready.exists())


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
