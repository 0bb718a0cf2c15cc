"""What people search for, per space the viewer edits: the submitted searches (``SearchLog``)
whose first results included a page of that space the viewer may read, how often a result of
the space was opened, and the pages most opened from search.

Like the rest of Insights (``search/insights/selectors.py``): no person is ever shown, only spaces the
viewer edits are listed (superusers: all), and a search counts for a space only through pages the
viewer may read (``Page.objects.visible_to``), so a query whose only result there is a page hidden
from them is not shown, and neither is that page.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from config.numbers import SEARCHES_MAX_ROWS as MAX_ROWS
from config.numbers import TOP_PAGES, TOP_QUERIES
from handbook.models import Page, Space
from search.insights.grouping import fold
from search.insights.selectors import Scope
from search.models import SearchClick, SearchLog


@dataclass
class SearchedQuery:
    text: str  # its most frequent wording
    count: int  # searches that found a page of the space
    opened: int  # of those, searches where a page of the space was opened

    @property
    def rate(self) -> int:
        """Click-through, in percent."""
        return round(100 * self.opened / self.count) if self.count else 0


@dataclass
class OpenedPage:
    page: Page
    opens: int


@dataclass
class SpaceSearches:
    space: Space
    total: int
    queries: list[SearchedQuery] = field(default_factory=list)
    pages: list[OpenedPage] = field(default_factory=list)


def _queries(rows: list[tuple[str, bool]]) -> list[SearchedQuery]:
    """(query, opened) rows grouped by folded text (case, accents, punctuation), most searched first."""
    wordings: dict[str, Counter[str]] = {}
    opened: Counter[str] = Counter()
    for text, was_opened in rows:
        key = fold(text) or text
        wordings.setdefault(key, Counter())[text] += 1
        opened[key] += was_opened
    queries = [
        SearchedQuery(words.most_common(1)[0][0], sum(words.values()), opened[key]) for key, words in wordings.items()
    ]
    return sorted(queries, key=lambda q: (-q.count, q.text))[:TOP_QUERIES]


def top_searches(scope: Scope, user: Any) -> list[SpaceSearches]:
    """Per space of the scope with searches: the top queries, their click-through and the pages opened."""
    logs = list(
        SearchLog.objects.filter(result_spaces__overlap=scope.space_ids)
        .order_by("-created_at")
        .values_list("pk", "query", "result_pages")[:MAX_ROWS]
    )
    wanted = {page_id for _pk, _query, pages in logs for page_id in pages or ()}
    # The pages the viewer may read, in the spaces they edit, and their (current) space.
    space_of = dict(
        Page.objects.visible_to(user).filter(pk__in=wanted, space_id__in=scope.space_ids).values_list("pk", "space_id")
    )
    clicks: dict[int, set[int]] = {}
    for log_id, page_id in SearchClick.objects.filter(search_log_id__in=[pk for pk, _q, _p in logs]).values_list(
        "search_log_id", "page_id"
    ):
        if page_id in space_of:
            clicks.setdefault(log_id, set()).add(page_id)
    rows: dict[int, list[tuple[str, bool]]] = {}
    opens: dict[int, Counter[int]] = {}
    for pk, query, page_ids in logs:
        opened_spaces = {space_of[p] for p in clicks.get(pk, ())}
        for space_id in {space_of[p] for p in page_ids or () if p in space_of}:
            rows.setdefault(space_id, []).append((query, space_id in opened_spaces))
        for page_id in clicks.get(pk, ()):
            opens.setdefault(space_of[page_id], Counter())[page_id] += 1
    top_pages = {pid for counter in opens.values() for pid, _n in counter.most_common(TOP_PAGES)}
    pages = {p.pk: p for p in Page.objects.visible_to(user).filter(pk__in=top_pages).select_related("space")}
    return [
        SpaceSearches(
            space=scope.spaces[space_id],
            total=len(rows[space_id]),
            queries=_queries(rows[space_id]),
            pages=[
                OpenedPage(pages[pid], n)
                for pid, n in opens.get(space_id, Counter()).most_common(TOP_PAGES)
                if pid in pages
            ],
        )
        for space_id in scope.spaces  # by title
        if space_id in rows
    ]
