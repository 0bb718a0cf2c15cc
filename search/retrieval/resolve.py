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

from core.db_router import read_connection
from core.users import is_active_user
from handbook.models import Page
from handbook.permissions import readable_ids_sql_for_groups, user_group_ids
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
    space_id: int

    def get_absolute_url(self) -> str:
        return reverse("page_detail", kwargs={"space_slug": self.space_slug, "page_slug": self.slug})


def readable_result_pages(user: Any, page_ids: Iterable[int]) -> dict[int, ResultPage]:
    """``readable_pages`` for a result list: the fields a list shows, through the same permission
    filter (``readable_ids_sql_for_groups``: ``visible_to``'s SQL, built once per set of groups;
    the groups read fresh), in one statement with the ids as one array parameter (``id__in`` bound
    one placeholder per id, and building the permission filter's query was half of this read)."""
    if not is_active_user(user):
        return {}
    readable_sql, readable_params = readable_ids_sql_for_groups(
        None if user.is_superuser else tuple(user_group_ids(user))
    )
    ids = "{" + ",".join(str(int(i)) for i in page_ids) + "}"
    with read_connection().cursor() as cursor:
        cursor.execute(
            "SELECT p.id, p.ref, p.title, p.slug, p.language, p.updated_at, p.translation_id, s.slug, s.title, s.id"
            " FROM handbook_page p JOIN handbook_space s ON s.id = p.space_id"
            f" WHERE p.id = ANY(%s::bigint[]) AND p.id IN ({readable_sql})",  # noqa: S608 - our own SQL
            [ids, *readable_params],
        )
        return {row[0]: ResultPage(*row) for row in cursor.fetchall()}


def readable_pages(user: Any, page_ids: Iterable[int], *fields: str) -> dict[int, Page]:
    """The pages among ``page_ids`` that ``user`` may read, as models: ``visible_to``'s filter as the
    SQL built once per set of groups (building its ORM query on every call was most of this read,
    once per Ask)."""
    if not is_active_user(user):
        return {}
    readable_sql, readable_params = readable_ids_sql_for_groups(
        None if user.is_superuser else tuple(user_group_ids(user))
    )
    pages = (
        Page.objects.filter(id__in=list(page_ids))
        .filter(id__in=RawSQL(readable_sql, readable_params))  # noqa: S611 - the permission filter's own SQL
        .select_related("space")
    )
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
