"""Filters, pagination, hostile or empty queries, and snippets over the retrieval test handbook."""

from __future__ import annotations

import pytest
from django.db import connection

from handbook.models import Page
from search.retrieval.hits import Filters
from search.retrieval.pipeline import retrieve
from search.retrieval.query import MAX_QUERY_CHARS
from search.selectors import highlight, search_pages
from tests.search.retrieval_world import PAGES, SECRET, add_page, found

pytestmark = pytest.mark.django_db


# --- filters ----------------------------------------------------------------------


def test_filter_by_space(kw):  # type: ignore[no-untyped-def]
    result = found(kw, "work", filters=Filters(space="finance"))
    assert result == ["expenses"]
    shown = search_pages(user=kw["bob"], query="work", space="finance")
    assert [r.ref for r in shown.results] == ["expenses"]
    # Facets count the unfiltered result set.
    assert {slug for slug, _t, _n in shown.facets["space"]} == {"people", "finance"}


def test_filter_by_language(kw):  # type: ignore[no-untyped-def]
    result = found(kw, "jours télétravail congés badges", filters=Filters(language="fr"))
    assert set(result) == {"teletravail", "conges"}
    shown = search_pages(user=kw["bob"], query="jours télétravail congés badges", language="en")
    assert {r.ref for r in shown.results} == {"parking", "access"}
    assert {code for code, _name, _n in shown.facets["language"]} == {"en", "fr"}


def test_unknown_space_filter_finds_nothing(kw):  # type: ignore[no-untyped-def]
    assert found(kw, "parking", filters=Filters(space="nope")) == []


def test_pagination(kw):  # type: ignore[no-untyped-def]
    first = search_pages(user=kw["bob"], query="badges parking visitors work", per_page=2)
    second = search_pages(user=kw["bob"], query="badges parking visitors work", per_page=2, page=2)
    assert len(first.results) == 2 and first.has_next and not first.has_previous
    assert second.has_previous
    assert not {r.page_id for r in first.results} & {r.page_id for r in second.results}
    assert first.total == second.total >= 3


# --- bad input --------------------------------------------------------------------


def test_empty_queries_return_nothing_quietly(kw):  # type: ignore[no-untyped-def]
    for query in ("", "   ", "\t\n", "-", '""', '-""', "---", "!!!"):
        shown = search_pages(user=kw["bob"], query=query)
        assert shown.error == "", query
        assert shown.results == [] and shown.total == 0, query


def test_overlong_query_is_a_clear_error(kw):  # type: ignore[no-untyped-def]
    shown = search_pages(user=kw["bob"], query="parking " * 1300)  # ~10 kB
    assert shown.results == []
    assert "too long" in shown.error and str(MAX_QUERY_CHARS) in shown.error


def test_query_at_the_limit_is_accepted(kw):  # type: ignore[no-untyped-def]
    query = ("parking " * 200)[:MAX_QUERY_CHARS]
    shown = search_pages(user=kw["bob"], query=query)
    assert shown.error == ""
    assert shown.results and shown.results[0].ref == "parking"


def test_control_characters_are_ignored(kw):  # type: ignore[no-untyped-def]
    shown = search_pages(user=kw["bob"], query="\x00par\x01\x7f king\u200b \ud800 parking\x1b[31m")
    assert shown.error == ""
    assert shown.results and shown.results[0].ref == "parking"


HOSTILE = [
    "&|!():*<->'\\",
    "parking & | ! ( ) : * <-> ' \\",
    "parking:* & !visitors",
    "'parking'",
    "(parking",
    "park<->ing",
    "a:*A&B|C",
    "'; DROP TABLE handbook_page; --",
    '" OR 1=1 --',
    "%s %(or)s %%s",
    "{visible} {filters}",
    "$$ $1 \\x00",
    "ʕ•ᴥ•ʔ 🚗🅿️",
    '"unterminated phrase parking',
    '- -parking "-"',
]


def test_syntax_and_sqlish_input_never_raises(kw):  # type: ignore[no-untyped-def]
    for query in HOSTILE:
        shown = search_pages(user=kw["bob"], query=query)
        assert shown.error == "", query
        assert isinstance(shown.results, list)
        retrieve(query, kw["bob"])  # the lower layer does not raise either
        assert not {r.ref for r in shown.results} & SECRET, query
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM handbook_page")
        assert cursor.fetchone()[0] == Page.objects.count() == len(PAGES)


def test_syntax_characters_around_words_still_find(kw):  # type: ignore[no-untyped-def]
    assert found(kw, "parking:* & !(garage)")[0] == "parking"


def test_stop_words_only_query(kw):  # type: ignore[no-untyped-def]
    shown = search_pages(user=kw["bob"], query="the of and le la les")
    assert shown.error == ""


@pytest.mark.parametrize("kind", ["anonymous", "inactive", "no-groups"])
def test_users_who_may_read_nothing_find_nothing(kw, make_user, kind):  # type: ignore[no-untyped-def]
    from django.contrib.auth.models import AnonymousUser

    if kind == "anonymous":
        user = AnonymousUser()
    elif kind == "inactive":
        user = kw["alice"]
        user.is_active = False
        user.save()
    else:
        user = make_user("carol")
    assert retrieve("parking canary", user).pages == []
    shown = search_pages(user=user, query="parking canary")
    assert shown.results == [] and shown.total == 0 and shown.error == ""
    assert all(not values for values in shown.facets.values())


# --- snippets -----------------------------------------------------------------------


def test_highlight_escapes_html_and_marks_matches():
    out = highlight("<script>alert('x')</script> Parking & badges for <b>visitors</b>", ["parking", "visitors"])
    assert "<script>" not in out and "<b>" not in out
    assert "&lt;script&gt;" in out and "&amp;" in out
    assert "<mark>Parking</mark>" in out
    assert "<mark>visitors</mark>" in out


def test_highlight_marks_accented_words_by_folded_prefix():
    out = highlight("Les congés payés sont posés en ligne.", ["conges", "payes"])
    assert "<mark>congés</mark>" in out and "<mark>payés</mark>" in out


def test_highlight_windows_long_text_around_the_first_match():
    text = "filler " * 100 + "the parking garage" + " tail" * 100
    out = highlight(text, ["parking"], limit=120)
    assert out.startswith("… ") and out.endswith(" …")
    assert "<mark>parking</mark>" in out
    assert len(out) < 200


def test_highlight_with_no_words_is_escaped_text():
    assert highlight("a < b", []) == "a &lt; b"
    assert highlight("Œuvre <i>", ["oeuvre"]) == "Œuvre &lt;i&gt;"  # folding changes lengths: no marks


def test_search_snippets_are_escaped(kw, make_page):  # type: ignore[no-untyped-def]
    page = add_page(
        kw,
        make_page,
        "scooters",
        "Scooters",
        "# Scooters\n\nScooters <script>alert(1)</script> park in bay <img src=x onerror=alert(1)> C.",
    )
    shown = search_pages(user=kw["bob"], query="scooters")
    result = next(r for r in shown.results if r.page_id == page.pk)
    assert "<script" not in result.snippet and "<img" not in result.snippet
    assert "<mark>Scooters</mark>" in result.snippet
