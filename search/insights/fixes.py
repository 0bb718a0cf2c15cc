"""Unanswered questions a page published since may now answer: "possibly fixed" on Insights.

Decided at page load, for the viewing editor, and nothing is stored:

- A group of unanswered questions is a candidate when a page the viewer may read
  (``Page.objects.visible_to``) was published or changed after the group was last seen, in one
  of the spaces its passages came from or in a space the viewer edits (any space for superusers).
- It is "possibly fixed" when such a page is among the first ``TOP_RANK`` pages the product's own
  retrieval (``search.retrieval.pipeline.retrieve``) finds for the group's wording, run as the
  viewer: the same permission-filtered path readers use, so no page the viewer may not read can
  be named.

Cost is bounded: only the first ``MAX_CHECKED`` groups shown are looked at, the candidate pages
of all of them come from one query, and retrieval runs only for groups that have a candidate
(once per wording per call).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from config.numbers import FIXES_MAX_CHECKED as MAX_CHECKED
from config.numbers import FIXES_TOP_RANK as TOP_RANK
from config.numbers import MAX_FRESH_PAGES
from handbook.models import Page
from search.insights.grouping import Group
from search.retrieval.pipeline import retrieve

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Fix:
    """A page (readable by the viewer) that may now answer the question."""

    title: str
    url: str


@dataclass(frozen=True)
class _Fresh:
    page_id: int
    space_id: int
    changed_at: datetime


def _fresh_pages(user: Any, since: datetime) -> list[_Fresh]:
    """Pages the viewer may read, published or changed after ``since``."""
    rows = (
        Page.objects.visible_to(user)
        .filter(updated_at__gt=since)
        .order_by("-updated_at")
        .values_list("id", "space_id", "updated_at")[:MAX_FRESH_PAGES]
    )
    return [_Fresh(*row) for row in rows]


def _top_pages(text: str, user: Any) -> list[int]:
    """The ids of the first pages retrieval finds for ``text``, as ``user`` would."""
    try:
        retrieval = retrieve(text, user)
    except Exception as exc:  # a hint on a report page: never a reason to fail it
        logger.warning("Insights could not check a question against fresh pages: %s", exc)
        return []
    return [hit.page_id for hit in retrieval.pages[:TOP_RANK]]


def possible_fixes(groups: list[Group], *, user: Any, edited_space_ids: list[int], superuser: bool) -> list[Fix | None]:
    """One entry per group (None: not possibly fixed); groups past ``MAX_CHECKED`` get None."""
    found: list[Fix | None] = [None] * len(groups)
    checked = [(i, g, g.last_seen) for i, g in enumerate(groups[:MAX_CHECKED]) if g.last_seen is not None]
    if user is None or not checked:
        return found
    fresh = _fresh_pages(user, min(last_seen for _i, _g, last_seen in checked))
    if not fresh:
        return found
    edited = set(edited_space_ids)
    ranked: dict[str, list[int]] = {}  # per wording: retrieval runs once per call
    winners: dict[int, int] = {}  # group index -> page id
    for i, group, last_seen in checked:
        spaces = set(group.spaces) | edited
        candidates = {f.page_id for f in fresh if f.changed_at > last_seen and (superuser or f.space_id in spaces)}
        if not candidates:
            continue
        if group.text not in ranked:
            ranked[group.text] = _top_pages(group.text, user)
        best = next((page_id for page_id in ranked[group.text] if page_id in candidates), None)
        if best is not None:
            winners[i] = best
    if not winners:
        return found
    # Read again through visible_to: the title and link only of a page the viewer may read.
    pages = Page.objects.visible_to(user).filter(id__in=set(winners.values())).select_related("space")
    by_id = {page.pk: page for page in pages}
    for i, page_id in winners.items():
        page = by_id.get(page_id)
        if page is not None:
            found[i] = Fix(title=page.title, url=page.get_absolute_url())
    return found
