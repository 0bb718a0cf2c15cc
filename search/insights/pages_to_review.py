""" "Pages to review" on Insights: pages past their review-by date, and pages nobody opens.

Both lists go to whoever answers for the page (``handbook.review.selectors.answered_for``) and start
from ``Page.objects.visible_to``: nobody is ever shown a page they cannot read. A page is listed as
not viewed when it is published, older than ``NOT_VIEWED_DAYS`` and nobody opened it in that time
(``handbook/page_views.py``), once views have been counted that long. The owners' e-mail digest of
overdue pages is page review's own (``handbook/review/``).
"""

from __future__ import annotations

import datetime
from typing import Any

from django.db.models import Exists, OuterRef
from django.utils import timezone

from config.numbers import MAX_TO_REVIEW
from core.users import is_active_user
from handbook.models import Page, PageViewDay
from handbook.page_views import NOT_VIEWED_DAYS, views_counted_since
from handbook.review.selectors import answered_for, overdue


def pages_to_review(user: Any, *, today: datetime.date | None = None, limit: int = MAX_TO_REVIEW) -> list[Page]:
    """Overdue pages the user may read and answers for, most overdue first."""
    if not is_active_user(user):
        return []
    pages = answered_for(overdue(Page.objects.visible_to(user), today), user)
    return list(pages.select_related("space", "owner_user", "owner_group").order_by("review_by", "title", "pk")[:limit])


def pages_not_viewed(user: Any, *, today: datetime.date | None = None, limit: int = MAX_TO_REVIEW) -> list[Page]:
    """Pages the user may read and answers for, published over ``NOT_VIEWED_DAYS`` ago, that nobody
    opened in that time; oldest first. Empty until views have been counted that long."""
    if not is_active_user(user):
        return []
    since = (today or timezone.localdate()) - datetime.timedelta(days=NOT_VIEWED_DAYS)
    if not views_counted_since(since):
        return []
    viewed = PageViewDay.objects.filter(page_id=OuterRef("pk"), day__gt=since, views__gt=0)
    pages = Page.objects.visible_to(user).filter(created_at__date__lte=since).exclude(Exists(viewed))
    pages = answered_for(pages, user).select_related("space", "owner_user", "owner_group")
    return list(pages.order_by("created_at", "title", "pk")[:limit])
