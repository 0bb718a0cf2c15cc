"""A search that found nothing is people's words: Insights lists it only once as many distinct
people searched it as the rule for questions that matched nothing asks (``MIN_ASKERS``), and never
says who searched."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from search.insights.visibility import MIN_ASKERS
from search.models import SearchMiss

pytestmark = pytest.mark.django_db

MISS = "xyzzyplugh"


@pytest.fixture(autouse=True)
def _fresh_cache():  # type: ignore[no-untyped-def]
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def space(make_space, make_page, no_embeddings):  # type: ignore[no-untyped-def]
    space = make_space("facilities", viewers=("staff",), editors=("a-editors",))
    make_page(space, "Parking", "# Parking\n\nThe garage under building B has forty spaces.\n", ref="parking")
    return space


def _search(user, *queries: str) -> None:  # type: ignore[no-untyped-def]
    browser = Client()
    browser.force_login(user)
    for query in queries:
        assert browser.get("/search/", {"q": query}).status_code == 200


def _insights(user) -> str:  # type: ignore[no-untyped-def]
    browser = Client()
    browser.force_login(user)
    response = browser.get("/insights/")
    assert response.status_code == 200
    return response.content.decode()


def test_one_person_s_search_that_found_nothing_is_not_shown_however_often_they_search(space, make_user):
    """GIVEN one person searching the same missing words several times, in several spellings
    THEN no editor, not even a superuser, sees them on Insights."""
    lonely = make_user("lonely", "staff")
    _search(lonely, *[MISS, MISS.upper(), f"{MISS}!"][:MIN_ASKERS])
    assert SearchMiss.objects.count() == MIN_ASKERS  # recorded: it counts towards the rule

    for viewer in (make_user("eda", "staff", "a-editors"), make_user("root", superuser=True)):
        assert MISS not in _insights(viewer).lower()


def test_a_search_that_found_nothing_is_shown_once_enough_people_searched_it(space, make_user):
    """GIVEN MIN_ASKERS distinct people searching the same missing words
    THEN editors see them on Insights, without any of the searchers' names."""
    searchers = [make_user(f"searcher{n}", "staff") for n in range(MIN_ASKERS)]
    editor = make_user("eda", "staff", "a-editors")
    for person in searchers[:-1]:
        _search(person, MISS)
    assert MISS not in _insights(editor)  # one short of the rule

    _search(searchers[-1], MISS.capitalize())
    body = _insights(editor)
    assert MISS in body.lower()
    for person in searchers:
        assert person.username not in body
