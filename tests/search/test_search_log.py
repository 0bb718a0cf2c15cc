"""Submitted searches are recorded without the searcher; an opened result counts only if it was one."""

from __future__ import annotations

import re
import uuid
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.utils import timezone

from search.insights.logs import logs_purge, search_click_record, search_log_record
from search.models import SearchClick, SearchLog, SearchMiss

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast(settings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def world(make_space, make_page, make_user, no_embeddings) -> SimpleNamespace:  # type: ignore[no-untyped-def]
    a = make_space("facilities", viewers=("staff",), editors=("a-editors",))
    b = make_space("payroll", viewers=("staff",), editors=("b-editors",))
    garage = make_page(a, "Parking garage", "# Parking garage\n\nThe garage under building B has forty spaces.")
    rules = make_page(b, "Garage allowance", "# Garage allowance\n\nPayroll pays a garage allowance monthly.")
    other = make_page(a, "Canteen", "# Canteen\n\nLunch is served at noon.")
    return SimpleNamespace(a=a, b=b, garage=garage, rules=rules, other=other, bob=make_user("bob", "staff"))


def test_a_submitted_search_is_recorded_with_its_results_and_without_its_author(client, world):
    client.force_login(world.bob)
    response = client.get("/search/", {"q": "garage"})
    log = SearchLog.objects.get()
    assert log.query == "garage"
    assert sorted(log.result_pages) == sorted([world.garage.pk, world.rules.pk])
    assert sorted(log.result_spaces) == sorted([world.a.pk, world.b.pk])
    assert log.result_spaces[0] == {world.garage.pk: world.a.pk, world.rules.pk: world.b.pk}[log.result_pages[0]]
    assert {f.name for f in SearchLog._meta.get_fields()} == {
        "id",
        "key",
        "query",
        "language",
        "result_spaces",
        "result_pages",
        "created_at",
        "clicks",
    }
    html = response.content.decode()
    assert f'data-search-log="{log.key}"' in html
    assert f'data-page="{world.garage.pk}"' in html


def test_typing_pages_after_the_first_and_errors_are_not_recorded(client, world):
    client.force_login(world.bob)
    client.get("/search/", {"q": "gara"}, HTTP_HX_REQUEST="true", HTTP_HX_TRIGGER="q")  # as you type
    html = client.get("/search/", {"q": "garage", "page": "2"}).content.decode()
    client.get("/search/", {"q": "garage " * 200})  # too long: an error, not a search
    assert not SearchLog.objects.exists()
    assert "data-search-log" not in html


def test_a_search_that_finds_nothing_is_logged_and_still_a_miss(client, world):
    client.force_login(world.bob)
    client.get("/search/", {"q": "xyzzyplugh"})
    assert list(SearchMiss.objects.values_list("query", flat=True)) == ["xyzzyplugh"]
    assert list(SearchLog.objects.values_list("query", "result_pages", "result_spaces")) == [("xyzzyplugh", [], [])]


def test_an_opened_result_is_recorded_once_and_only_for_a_page_among_the_results(client, world):
    client.force_login(world.bob)
    html = client.get("/search/", {"q": "parking garage"}).content.decode()
    log = SearchLog.objects.get()
    assert re.search(r'data-opened-url="/search/opened/"', html)
    for _ in range(2):
        assert client.post("/search/opened/", {"log": log.key, "page": world.garage.pk}).status_code == 204
    client.post("/search/opened/", {"log": log.key, "page": world.other.pk})  # not a result: ignored
    client.post("/search/opened/", {"log": log.pk, "page": world.garage.pk})  # the id is not the key
    client.post("/search/opened/", {"log": uuid.uuid4(), "page": world.garage.pk})  # no such search
    client.post("/search/opened/", {"log": "1 OR 1=1", "page": world.garage.pk})
    assert list(SearchClick.objects.values_list("search_log_id", "page_id")) == [(log.pk, world.garage.pk)]
    assert client.get("/search/opened/").status_code == 405


def test_a_click_long_after_its_search_counts_nothing(world):
    log = search_log_record(query="garage", language="en", results=[(world.garage.pk, world.garage.space_id)])
    SearchLog.objects.filter(pk=log.pk).update(created_at=timezone.now() - timedelta(days=2))
    assert search_click_record(key=log.key, page_id=world.garage.pk) is False
    assert not SearchClick.objects.exists()


def test_clicks_need_a_signed_in_reader_and_the_csrf_token(world):
    from django.test import Client

    anonymous = Client(enforce_csrf_checks=True)
    log = search_log_record(query="garage", language="en", results=[(world.garage.pk, world.garage.space_id)])
    assert anonymous.post("/search/opened/", {"log": log.key, "page": world.garage.pk}).status_code in (302, 403)
    signed_in = Client(enforce_csrf_checks=True)
    signed_in.force_login(world.bob)
    assert signed_in.post("/search/opened/", {"log": log.key, "page": world.garage.pk}).status_code == 403
    assert not SearchClick.objects.exists()


def test_logged_searches_and_their_clicks_are_purged_with_the_other_logs(settings, world):
    settings.ASK_LOG_RETENTION_DAYS = 90
    old = search_log_record(query="old", language="en", results=[(world.garage.pk, world.garage.space_id)])
    new = search_log_record(query="new", language="en", results=[(world.garage.pk, world.garage.space_id)])
    search_click_record(key=old.key, page_id=world.garage.pk)
    SearchLog.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=91))
    assert logs_purge()["search_logs"] == 1
    assert list(SearchLog.objects.values_list("pk", flat=True)) == [new.pk]
    assert not SearchClick.objects.exists()
