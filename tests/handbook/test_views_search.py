"""Search page: full page or htmx fragment, bad input, filters, permissions."""

from __future__ import annotations

import pytest

from search.views import looks_like_question

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def test_empty_query_shows_tips(client, handbook):
    client.force_login(handbook.reader)
    response = client.get("/search/")
    assert response.status_code == 200
    assert b"results appear as you type" in response.content


def test_full_page_has_layout_and_search_as_you_type_input(client, handbook):
    client.force_login(handbook.reader)
    html = client.get("/search/?q=screen").content.decode()
    assert "<html" in html and 'id="results"' in html
    assert 'hx-trigger="input changed delay:150ms"' in html  # the light list (search/as_you_type.py)
    assert 'hx-trigger="input changed delay:1000ms from:#q"' in html  # the full list on a longer pause
    assert 'hx-push-url="true"' in html
    assert "Remote work" in html
    assert 'href="/spaces/hr/remote-work/#equipment"' in html  # opens at the passage


def test_htmx_request_gets_only_the_results_fragment(client, handbook):
    client.force_login(handbook.reader)
    response = client.get("/search/?q=screen", **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert "<html" not in html and "<body" not in html
    assert html.lstrip().startswith('<div id="results"')
    assert "Remote work" in html
    assert "HX-Request" in response["Vary"]


def test_history_restore_gets_the_full_page(client, handbook):
    client.force_login(handbook.reader)
    html = client.get("/search/?q=screen", HTTP_HX_HISTORY_RESTORE_REQUEST="true", **HX).content.decode()
    assert "<html" in html


def test_result_shows_language_badge_and_marked_snippet(client, handbook, make_page):
    make_page(handbook.it, "Écran", "# Écran\n\nUn second écran est prêté sur demande.\n", language="fr")
    client.force_login(handbook.reader)
    html = client.get("/search/?q=écran").content.decode()
    assert '<span class="badge badge--lang" title="fr">FR</span>' in html
    assert "<mark>" in html


@pytest.mark.parametrize(
    "query", ["x" * 10_000, "screen\x00\x1b[31m\x07", '"unclosed -" -', "<script>alert(1)</script>"]
)
def test_bad_queries_answer_200_with_a_message(client, handbook, query):
    client.force_login(handbook.reader)
    response = client.get("/search/", {"q": query})
    assert response.status_code == 200
    fragment = client.get("/search/", {"q": query}, **HX)
    assert fragment.status_code == 200


def test_invalid_utf8_in_the_url_is_not_an_error(client, handbook):
    client.force_login(handbook.reader)
    assert client.get("/search/?q=%ED%A0%80%FF%00screen&space=%FF&lang=%00").status_code == 200


def test_query_is_escaped_when_shown(client, handbook):
    client.force_login(handbook.reader)
    html = client.get("/search/", {"q": "<script>alert(1)</script>"}).content.decode()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;" in html


def test_too_long_query_explains_the_limit(client, handbook):
    client.force_login(handbook.reader)
    html = client.get("/search/", {"q": "x" * 10_000}).content.decode()
    assert "too long" in html and 'role="alert"' in html


def test_junk_page_number_is_ignored(client, handbook):
    client.force_login(handbook.reader)
    for page in ["abc", "-1", "0", "99999999999999999999"]:
        assert client.get("/search/", {"q": "screen", "page": page}).status_code == 200


def test_restricted_and_foreign_pages_never_appear(client, handbook):
    client.force_login(handbook.reader)
    for query in ["salary grid", "confidential", "acquisition competitor"]:
        html = client.get("/search/", {"q": query}).content.decode()
        assert "Salary bands" not in html and "Board minutes" not in html
        assert "Board" not in html  # not even as a space facet
    client.force_login(handbook.payroll)
    assert "Salary bands" in client.get("/search/", {"q": "salary grid"}).content.decode()


def test_facets_filter_by_space_and_language(client, handbook, make_page):
    make_page(handbook.it, "Screens for IT", "# Screens\n\nIT lends a screen too.\n")
    client.force_login(handbook.reader)
    html = client.get("/search/", {"q": "screen"}).content.decode()
    assert 'href="/search/?q=screen&amp;space=it"' in html
    filtered = client.get("/search/", {"q": "screen", "space": "it"}).content.decode()
    assert "Screens for IT" in filtered and "Remote work" not in filtered
    assert '<input type="hidden" name="space" value="it" form="search-form">' in filtered
    assert client.get("/search/", {"q": "screen", "lang": "fr"}).status_code == 200


def test_no_results_suggests_next_steps(client, handbook):
    client.force_login(handbook.reader)
    html = client.get("/search/", {"q": "zzzqqq", "space": "hr"}).content.decode()
    assert "No page matches" in html
    assert "Search again without filters" in html
    assert 'href="/ask/?q=zzzqqq"' in html


def test_question_gets_an_ask_placeholder_that_loads_separately(client, handbook):
    client.force_login(handbook.reader)
    html = client.get("/search/", {"q": "can I borrow a screen?"}).content.decode()
    # Asking is logged and rate limited: the panel asks by POST (htmx sends the CSRF token).
    assert '<input type="hidden" id="ask-question" name="q" value="can I borrow a screen?">' in html
    assert 'hx-post="/ask/" hx-include="#ask-question"' in html
    assert 'hx-trigger="load"' in html
    assert 'data-stream-url="/ask/stream/"' in html
    typing = client.get("/search/", {"q": "can I borrow a screen?"}, **HX).content.decode()
    assert 'hx-trigger="load delay:800ms"' in typing
    assert 'hx-post="/ask/' not in client.get("/search/", {"q": "screen"}).content.decode()


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("how do I get a screen", True),
        ("VPN?", True),
        ("comment poser un congé", True),
        ("screen", False),
        ("vpn setup guide", False),
        ("", False),
    ],
)
def test_looks_like_question(query, expected):
    assert looks_like_question(query) is expected


def test_search_is_rate_limited(client, handbook, settings):
    settings.SEARCH_RATE_LIMIT = "2/m"
    client.force_login(handbook.reader)
    assert client.get("/search/", {"q": "screen"}).status_code == 200
    assert client.get("/search/", {"q": "screen"}).status_code == 200
    response = client.get("/search/", {"q": "screen"})
    assert response.status_code == 429
    assert b"wait a moment" in response.content
