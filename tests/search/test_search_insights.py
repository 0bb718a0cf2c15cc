"""Insights, "What people look for": searches per space, scoped to the spaces and pages the viewer may see."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from django.core.cache import cache

from search.insights.logs import search_click_record, search_log_record
from search.insights.searches import top_searches
from search.insights.selectors import insights_scope

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast(settings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
    yield
    cache.clear()


def _search(query: str, *pages, opened=()):  # type: ignore[no-untyped-def]
    log = search_log_record(query=query, language="en", results=[(p.pk, p.space_id) for p in pages])
    for page in opened:
        search_click_record(key=log.key, page_id=page.pk)
    return log


@pytest.fixture
def world(make_space, make_page, make_user, no_embeddings) -> SimpleNamespace:  # type: ignore[no-untyped-def]
    a = make_space("facilities", viewers=("staff",), editors=("a-editors",))
    b = make_space("payroll", viewers=("payroll",), editors=("b-editors",))
    garage = make_page(a, "Parking garage", "# Parking garage\n\nForty spaces.", index=False)
    canteen = make_page(a, "Canteen", "# Canteen\n\nNoon.", index=False)
    board = make_page(a, "Boardsecret minutes", "# Minutes\n\nSecret.", restricted_to=("board",), index=False)
    bands = make_page(b, "Salary bandtitle", "# Salary bands\n\nGrid.", index=False)
    _search("parking", garage, canteen, opened=[garage])
    _search("parking", garage, opened=[garage])
    _search("PARKING!", garage)
    _search("lunch time", canteen)
    _search("salarysearch", bands, opened=[bands])
    _search("layoffsearch", board, opened=[board])  # only a hidden page of A matched
    _search("garage allowance", bands, garage, opened=[bands])
    _search("nothingfound")
    return SimpleNamespace(
        a=a,
        b=b,
        garage=garage,
        canteen=canteen,
        board=board,
        bands=bands,
        ana=make_user("ana", "staff", "a-editors"),
        bea=make_user("bea", "payroll", "b-editors"),
        reader=make_user("carl", "staff", "payroll"),
    )


def _view(user):  # type: ignore[no-untyped-def]
    return {
        entry.space.slug: (
            [(q.text, q.count, q.rate) for q in entry.queries],
            [(p.page.title, p.opens) for p in entry.pages],
            entry.total,
        )
        for entry in top_searches(insights_scope(user), user)
    }


def test_an_editor_sees_the_searches_of_their_space_with_click_through(world):
    queries, pages, total = _view(world.ana)["facilities"]
    assert queries[0] == ("parking", 3, 67)  # two wordings, a garage result opened twice
    assert ("lunch time", 1, 0) in queries
    assert ("garage allowance", 1, 0) in queries  # its opened result was in payroll
    assert pages == [("Parking garage", 2)]
    assert total == 5


def test_nothing_of_spaces_not_edited_nor_of_hidden_pages(world):
    seen = _view(world.ana)
    assert list(seen) == ["facilities"]
    texts = [q for q, _n, _r in seen["facilities"][0]]
    assert "salarysearch" not in texts and "layoffsearch" not in texts and "nothingfound" not in texts
    payroll = _view(world.bea)
    assert list(payroll) == ["payroll"]
    assert payroll["payroll"][0] == [("garage allowance", 1, 100), ("salarysearch", 1, 100)]
    assert payroll["payroll"][1] == [("Salary bandtitle", 2)]


def test_a_board_editor_sees_the_hidden_page_they_may_read(world, make_user):
    eve = make_user("eve", "staff", "a-editors", "board")
    queries, pages, _total = _view(eve)["facilities"]
    assert ("layoffsearch", 1, 100) in queries
    assert ("Boardsecret minutes", 1) in pages


def test_a_superuser_sees_every_space(world, make_user):
    root = make_user("root", superuser=True)
    assert set(_view(root)) == {"facilities", "payroll"}


def test_the_insights_page_shows_each_editor_their_spaces_searches_only(client, world):
    client.force_login(world.ana)
    html = client.get("/insights/").content.decode()
    section = html[html.index('id="searches-title"') :]
    assert "parking" in section and "Parking garage" in section
    for hidden in ("salarysearch", "layoffsearch", "Boardsecret", "Salary bandtitle", "Payroll", "nothingfound"):
        assert hidden not in html
    assert re.search(r"<td>3</td><td>67 %</td>", section)
    client.force_login(world.bea)
    html = client.get("/insights/").content.decode()
    assert "salarysearch" in html and "lunch time" not in html and "Parking garage" not in html
    client.force_login(world.reader)
    assert client.get("/insights/").status_code == 404


def test_the_section_is_translated(client, world):
    client.force_login(world.ana)
    html = client.get("/insights/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Recherches" in html and "Les plus ouvertes depuis la recherche" in html
