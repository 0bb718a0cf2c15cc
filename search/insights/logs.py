"""What people look for: submitted searches (the first results, which were opened), searches that
found nothing, and how long such logs are kept.

Questions and searches are people's words. Searches are recorded without the person (a search
that found nothing keeps only a key that tells its searcher from others who searched the same
words: ``_searcher_key``), and the Ask log, the searches and the searches that found nothing are
deleted after ``ASK_LOG_RETENTION_DAYS`` (default 90) by a daily task.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import CharField, Func, Value
from django.db.models.functions import Concat
from django.utils import timezone
from django.utils.crypto import salted_hmac

from config.numbers import CLICK_WITHIN_HOURS, LANGUAGE_CODE_CHARS, RESULTS_LOGGED
from config.numbers import LOG_MAX_QUERY_CHARS as MAX_QUERY_CHARS
from handbook.page_views import page_views_purge
from search.insights.visibility import same_words
from search.models import AskLog, SearchClick, SearchLog, SearchMiss


def _clean(query: str) -> str:
    # Control characters (NUL above all: Postgres text refuses it) are not words anyone looks for.
    return " ".join("".join(c for c in query if c.isprintable() or c.isspace()).split())[:MAX_QUERY_CHARS]


def _searcher_key(user_id: Any, text: str) -> Func:
    """SQL for the hex SHA-256 of a secret of the person's and the words of ``text``.

    The words are folded by the same SQL as Insights counts them with (``same_words``), so one
    person's spellings of a search are one searcher. With the words in it, a person's keys for
    other searches have nothing in common with it: it gathers nobody's searches, and without
    SECRET_KEY it names nobody.
    """
    person = salted_hmac("search.insights.logs.searcher", str(user_id), algorithm="sha256").hexdigest()
    utf8 = Func(Concat(Value(person), same_words(Value(text))), Value("UTF8"), function="convert_to")
    return Func(Func(utf8, function="sha256"), Value("hex"), function="encode", output_field=CharField())


def search_miss_record(*, query: str, language: str, user: Any) -> SearchMiss | None:
    """Record a submitted search that found nothing (no user is stored: ``_searcher_key``)."""
    text = _clean(query)
    if not text:
        return None
    key = _searcher_key(user.pk, text) if user.pk is not None else None  # anonymous: nobody
    miss = SearchMiss.objects.create(query=text, language=language[:LANGUAGE_CODE_CHARS], searcher_key=key)
    if key is not None:  # the instance holds the SQL, with the person's secret in it, not the key
        miss.refresh_from_db(using=miss._state.db, fields=["searcher_key"])  # the primary: a replica may lag
    return miss


def search_log_record(*, query: str, language: str, results: list[tuple[int, int]]) -> SearchLog | None:
    """Record a submitted search with its first results ((page id, its space's id), best first, as
    the list showed them); no user is stored."""
    text = _clean(query)
    if not text:
        return None
    space_of = dict(results)
    page_ids = list(space_of)[:RESULTS_LOGGED]
    spaces = list(dict.fromkeys(space_of[p] for p in page_ids))
    return SearchLog.objects.create(
        query=text, language=language[:LANGUAGE_CODE_CHARS], result_spaces=spaces, result_pages=page_ids
    )


def search_click_record(*, key: uuid.UUID, page_id: int) -> bool:
    """Record that a result of a recent logged search was opened: only a page among its results counts."""
    since = timezone.now() - timedelta(hours=CLICK_WITHIN_HOURS)
    log_id = (
        SearchLog.objects.filter(key=key, created_at__gte=since, result_pages__contains=[page_id])
        .values_list("pk", flat=True)
        .first()
    )
    if log_id is None:
        return False
    SearchClick.objects.bulk_create([SearchClick(search_log_id=log_id, page_id=page_id)], ignore_conflicts=True)
    return True


def logs_purge(*, now=None) -> dict[str, int]:
    """Delete Ask log rows and recorded searches older than the retention period, and page view
    counts older than theirs (``handbook/page_views.py``)."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.ASK_LOG_RETENTION_DAYS)
    asks, _by_model = AskLog.objects.filter(created_at__lt=cutoff).delete()
    misses, _by_model = SearchMiss.objects.filter(created_at__lt=cutoff).delete()
    _total, by_model = SearchLog.objects.filter(created_at__lt=cutoff).delete()  # their clicks with them
    return {
        "ask_logs": asks,
        "search_misses": misses,
        "search_logs": by_model.get(SearchLog._meta.label, 0),
        "page_views": page_views_purge(now=now),
    }
