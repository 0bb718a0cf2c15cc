"""Searches that found nothing are recorded without the person; old logs are purged."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from search.insights.logs import logs_purge
from search.models import AskLog, SearchMiss

pytestmark = pytest.mark.django_db


def test_a_submitted_search_that_finds_nothing_is_recorded_without_its_author(client, make_space, make_page, make_user):
    space = make_space("people", viewers=("staff",))
    make_page(space, "Parking", "# Parking\n\nThe garage under building B has forty spaces.", ref="parking")
    bob = make_user("bob", "staff")
    client.force_login(bob)
    client.get("/search/", {"q": "xyzzyplugh"})
    client.get("/search/", {"q": "xyzzyplu"}, HTTP_HX_REQUEST="true", HTTP_HX_TRIGGER="q")  # typing: not recorded
    client.get("/search/", {"q": "parking garage"})  # found something: not recorded
    assert list(SearchMiss.objects.values_list("query", flat=True)) == ["xyzzyplugh"]
    assert not [f.name for f in SearchMiss._meta.get_fields() if f.name in ("user", "user_id")]


def test_logs_older_than_the_retention_period_are_purged(settings):
    settings.ASK_LOG_RETENTION_DAYS = 90
    now = timezone.now()
    old_ask = AskLog.objects.create(question="old", mode=AskLog.Mode.NO_ANSWER)
    new_ask = AskLog.objects.create(question="new", mode=AskLog.Mode.NO_ANSWER)
    old_miss = SearchMiss.objects.create(query="old")
    new_miss = SearchMiss.objects.create(query="new")
    AskLog.objects.filter(pk=old_ask.pk).update(created_at=now - timedelta(days=91))
    SearchMiss.objects.filter(pk=old_miss.pk).update(created_at=now - timedelta(days=91))
    assert logs_purge(now=now) == {"ask_logs": 1, "search_misses": 1, "search_logs": 0, "page_views": 0}
    assert list(AskLog.objects.values_list("pk", flat=True)) == [new_ask.pk]
    assert list(SearchMiss.objects.values_list("pk", flat=True)) == [new_miss.pk]


def test_the_purge_runs_as_a_periodic_task(settings):
    from search.tasks import purge_old_logs

    assert any(entry["task"] == "search.tasks.purge_old_logs" for entry in settings.CELERY_BEAT_SCHEDULE.values())
    SearchMiss.objects.create(query="old")
    SearchMiss.objects.update(created_at=timezone.now() - timedelta(days=400))
    purge_old_logs.delay()
    assert not SearchMiss.objects.exists()
