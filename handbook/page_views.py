"""Page views: how often each published page is opened, per day, and never by whom.

A reader opening a page (an authenticated GET of the page itself: not an editor's preview, not
its history) adds one to that page's count for the day, in one ``INSERT ... ON CONFLICT``. The
counts feed "Pages to review" (``search/insights/pages_to_review.py``: pages nobody opened in
``NOT_VIEWED_DAYS``) and are deleted after ``PAGE_VIEW_RETENTION_DAYS``.
"""

from __future__ import annotations

import datetime
from datetime import timedelta
from typing import Any

from django.db import connections, router
from django.utils import timezone

from handbook.models import Page, PageViewDay

NOT_VIEWED_DAYS = 90
# A year of counts: enough to say "not opened in 90 days" whatever the log retention is.
PAGE_VIEW_RETENTION_DAYS = 365


def page_view_record(page: Page, *, day: datetime.date | None = None) -> None:
    """Count one view of ``page`` on ``day`` (today)."""
    table = PageViewDay._meta.db_table
    with connections[router.db_for_write(PageViewDay)].cursor() as cursor:
        # The table name is the model's; the values are parameters.
        cursor.execute(
            f"INSERT INTO {table} (page_id, day, views) VALUES (%s, %s, 1) "  # noqa: S608
            f"ON CONFLICT (page_id, day) DO UPDATE SET views = {table}.views + 1",
            [page.pk, day or timezone.localdate()],
        )


def views_counted_since(day: datetime.date) -> bool:
    """Whether views were already counted on or before ``day``: before that, "never opened" means nothing."""
    return PageViewDay.objects.filter(day__lte=day).exists()


def page_views_purge(*, now: Any = None) -> int:
    """Delete the counts of days older than the retention period."""
    today = timezone.localdate(now) if now else timezone.localdate()
    cutoff = today - timedelta(days=PAGE_VIEW_RETENTION_DAYS)
    deleted, _by_model = PageViewDay.objects.filter(day__lt=cutoff).delete()
    return deleted
