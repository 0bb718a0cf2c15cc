"""From retrieval's hits to what is shown: the pages, still readable, and their chunks.

The one resolver behind the web results (``search/selectors.py``), the CLI and API hit lists
(``search/hit_list.py``) and Ask's passages (``search/ask/passages.py``). Pages are read
again through the permission filter: a page unpublished or hidden since the retrieval
query is dropped, never shown.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from handbook.models import Page
from search.models import Chunk


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
