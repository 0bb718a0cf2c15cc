"""From retrieval's hits to what is shown: the pages, still readable, and their chunks.

The one resolver behind the web results (``search/selectors.py``), the CLI and API hit lists
(``search/hit_list.py``) and Ask's passages (``search/ask/passages.py``). Pages are read
again through the permission filter: a page unpublished or hidden since the retrieval
query is dropped, never shown.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models.expressions import RawSQL
from django.urls import reverse

from handbook.models import Page
from search.models import Chunk


@dataclass(frozen=True)
class ResultPage:
    """What a result list shows of a readable page: a row, not a model (a search reads every page of
    its result set, often a hundred or more, and making a ``Page`` and its ``Space`` of each row was
    most of the time after retrieval)."""

    pk: int
    ref: str
    title: str
    slug: str
    language: str
    updated_at: datetime
    translation_id: int | None
    space_slug: str
    space_title: str

    def get_absolute_url(self) -> str:
        return reverse("page_detail", kwargs={"space_slug": self.space_slug, "page_slug": self.slug})


def readable_result_pages(user: Any, page_ids: Iterable[int]) -> dict[int, ResultPage]:
    """``readable_pages`` for a result list: the same permission filter, the fields a list shows."""
    # The ids as one array parameter: ``id__in`` sent one placeholder per id, each bound in Python.
    ids = RawSQL("SELECT unnest(%s::bigint[])", ["{" + ",".join(str(int(i)) for i in page_ids) + "}"])
    rows = (
        Page.objects.visible_to(user)
        .filter(id__in=ids)
        .values_list(
            *("id", "ref", "title", "slug", "language", "updated_at", "translation_id"),
            *("space__slug", "space__title"),
        )
    )
    return {row[0]: ResultPage(*row) for row in rows}


def readable_pages(user: Any, page_ids: Iterable[int], *fields: str) -> dict[int, Page]:
    pages = Page.objects.visible_to(user).filter(id__in=list(page_ids)).select_related("space")
    if fields:
        pages = pages.only(*fields)
    return {page.pk: page for page in pages}


def chunks(chunk_ids: Iterable[int], *fields: str, with_revision: bool = False) -> dict[int, Chunk]:
    rows = Chunk.objects.filter(id__in=list(chunk_ids))
    if with_revision:
        rows = rows.select_related("revision")
    if fields:
        rows = rows.only(*fields)
    return {chunk.pk: chunk for chunk in rows}
