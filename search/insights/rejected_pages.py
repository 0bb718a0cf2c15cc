"""Pages whose citations got a thumbs-down: listed under "Pages to review" on Insights.

A page is listed when an Ask answer citing it (``AskLog.citations`` holds page refs) was rated
"not helpful", to the people who answer for it (``handbook.review.selectors.answered_for``: its
owner, its owner group's members, or its space's editors when it has no owner; superusers: all),
and only when they may read it (``Page.objects.visible_to``). Counts and the last answer's date
only: no comment, no question, no person (those are in "Answers readers rejected"). Only answers
whose question the viewer may see count (every passage page readable: ``search.insights.visibility``),
so a page hidden from them never moves a count or a date.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import Count, Func, IntegerField, JSONField, Max, OuterRef, Subquery
from django.db.models.functions import JSONObject

from config.numbers import MAX_TO_REVIEW
from core.users import is_active_user
from handbook.models import Page
from handbook.review.selectors import answered_for
from search.insights.visibility import readable_passages_q
from search.models import AskLog


@dataclass
class RejectedPage:
    page: Page
    thumbs_down: int
    last_at: datetime  # when the most recent answer rated "not helpful" that cites it was given


def _rejections(user: Any) -> Any:
    """Thumbs-down Ask log rows citing the outer page that ``user`` may see, grouped into one row."""
    cites_page = Func(JSONObject(ref=OuterRef("ref")), function="jsonb_build_array", output_field=JSONField())
    logs = AskLog.objects.filter(helpful=False, citations__contains=cites_page)
    if not user.is_superuser:
        logs = logs.filter(readable_passages_q(user))
    return (
        logs.order_by().values("helpful")  # one group: every matching row
    )


def rejected_pages(user: Any, *, limit: int = MAX_TO_REVIEW) -> list[RejectedPage]:
    """Pages the user may read and answers for, cited by answers rated "not helpful"; most
    thumbs-down first, then the most recently rejected."""
    if not is_active_user(user):
        return []
    rows = _rejections(user)
    pages = (
        answered_for(Page.objects.visible_to(user), user)
        .annotate(
            thumbs_down=Subquery(rows.annotate(n=Count("pk")).values("n"), output_field=IntegerField()),
            last_rejected_at=Subquery(rows.annotate(at=Max("created_at")).values("at")),
        )
        .filter(thumbs_down__gt=0)
        .select_related("space")
        .order_by("-thumbs_down", "-last_rejected_at", "title", "pk")[:limit]
    )
    return [RejectedPage(page, page.thumbs_down, page.last_rejected_at) for page in pages]
