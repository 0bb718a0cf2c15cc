"""What the handbook fails to answer: searches that found nothing, and how long such logs are kept.

Questions and searches are people's words. Searches are recorded without the
person, and both the Ask log and the searches that found nothing are deleted
after ``ASK_LOG_RETENTION_DAYS`` (default 90) by a daily task.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from handbook.page_views import page_views_purge
from search.models import AskLog, SearchMiss

MAX_QUERY_CHARS = 500


def search_miss_record(*, query: str, language: str) -> SearchMiss | None:
    """Record a submitted search that found nothing (no user is stored)."""
    # Control characters (NUL above all: Postgres text refuses it) are not words anyone looks for.
    text = " ".join("".join(c for c in query if c.isprintable() or c.isspace()).split())[:MAX_QUERY_CHARS]
    if not text:
        return None
    return SearchMiss.objects.create(query=text, language=language[:8])


def logs_purge(*, now=None) -> dict[str, int]:  # type: ignore[no-untyped-def]
    """Delete Ask log rows and recorded searches older than the retention period, and page view
    counts older than theirs (``handbook/page_views.py``)."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.ASK_LOG_RETENTION_DAYS)
    asks, _by_model = AskLog.objects.filter(created_at__lt=cutoff).delete()
    misses, _by_model = SearchMiss.objects.filter(created_at__lt=cutoff).delete()
    return {"ask_logs": asks, "search_misses": misses, "page_views": page_views_purge(now=now)}
