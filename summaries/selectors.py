"""Reads of summaries; every read that reaches a user goes through visible pages."""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

from django.db.models import BooleanField, Case, CharField, Exists, Func, OuterRef, TextField, Value, When
from django.db.models.functions import Concat

from core.llm import llm_configured
from handbook.models import Page
from handbook.permissions import PageQuerySet
from summaries.models import Summary

_TITLE_AND_BODY = "\n\n"  # what joins a title and a body in ``source_hash``


def source_hash(title: str, body: str) -> str:
    return hashlib.sha256(f"{title}{_TITLE_AND_BODY}{body}".encode()).hexdigest()


def summary_method() -> str:
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
    if page.is_template or not Page.objects.visible_to(user).filter(pk=page.pk).exists():
        return PageSummary(None, False)  # a template is a starting text: nothing to summarise
    revision = page.published_revision
    if revision is None:
        return PageSummary(None, False)
    ready = Summary.objects.filter(page=page, status=Summary.Status.READY)
    current = ready.filter(source_hash=source_hash(revision.title, revision.body)).order_by("-updated_at").first()
    if current:
        return PageSummary(current, False)
    return PageSummary(None, ready.exists())


def summaries_for_pages(page_ids: list[int]) -> dict[int, Summary]:
    """Current ready summaries keyed by page id; callers pass only ids they may show.

    The published texts are hashed where they are (the same digest as ``source_hash``): a result
    list asks this of every search, and reading each published body to hash it here cost more.
    """
    if not page_ids:
        return {}
    published_text = Concat(
        "page__published_revision__title", Value(_TITLE_AND_BODY), "page__published_revision__body",
        output_field=TextField(),
    )  # fmt: skip
    current = Summary.objects.filter(
        page_id__in=page_ids,
        status=Summary.Status.READY,
        page__published_revision__isnull=False,
        source_hash=_Sha256Hex(published_text),
    ).order_by("updated_at")
    return {summary.page_id: summary for summary in current}


# PostgreSQL's own sha256 of a text, in hex: ``source_hash`` computed where the text is.
_SHA256_HEX = "encode(sha256(convert_to({text}, 'UTF8')), 'hex')"


class _Sha256Hex(Func):
    """``_SHA256_HEX`` in the ORM's queries."""

    template = _SHA256_HEX.format(text="%(expressions)s")
    output_field = CharField()


def pages_without_current_summary(pages: PageQuerySet) -> list[int]:
    """Ids of published pages (templates aside) with no ready summary for their published text.

    One statement (``load_corpus --wait`` asks this of thousands of pages twice a second). A ready
    summary stored for the published revision is current; for the others Postgres hashes the
    published text and looks for a ready summary of the same text (republished unchanged).
    """
    ready = Summary.objects.filter(page_id=OuterRef("pk"), status=Summary.Status.READY)
    published_text = Concat(
        OuterRef("published_revision__title"), Value(_TITLE_AND_BODY), OuterRef("published_revision__body"),
        output_field=TextField(),
    )  # fmt: skip
    current = Case(
        # An LLM failure falls back to an extractive summary: any ready method counts.
        When(Exists(ready.filter(revision_id=OuterRef("published_revision_id"))), then=Value(True)),
        default=Exists(ready.filter(source_hash=_Sha256Hex(published_text))),
        output_field=BooleanField(),
    )
    return list(
        pages.published()
        .filter(is_template=False)
        .annotate(current=current)
        .filter(current=False)
        .values_list("id", flat=True)
    )
