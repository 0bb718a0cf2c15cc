"""Search-as-you-type: the request rule, the prefix list (permissions first), stale and capped requests."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.core.cache import cache
from django.template.loader import render_to_string

from search import as_you_type
from search.as_you_type import (
    LIGHT,
    PAUSE,
    SUBMITTED,
    parse_sequence,
    request_kind,
    superseded,
)
from search.retrieval.prefix import MAX_TERMS, prefix_matches, typed_terms

HX_LIGHT = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TRIGGER": "q", "HTTP_HX_TRIGGER_NAME": "q"}


# --- The rule: which request takes which path ------------------------------------------------


@pytest.mark.parametrize(
    ("htmx", "trigger", "typing_path", "kind"),
    [
        (True, None, True, LIGHT),  # the box's own request, a short pause in typing
        (False, None, True, SUBMITTED),  # the typing URL opened as a page: the search it stands for
        (True, "q-pause", False, PAUSE),  # a longer pause: the full list, as typing
        (True, "q", False, PAUSE),  # a page loaded before the light path: its box still sends here
        (True, "search-form", False, SUBMITTED),  # Enter
        (True, None, False, SUBMITTED),  # links, pagination, "did you mean"
        (False, "q-pause", False, SUBMITTED),  # a full page is always a search someone asked for
    ],
)
def test_request_kind(htmx, trigger, typing_path, kind):  # type: ignore[no-untyped-def]
    assert request_kind(htmx=htmx, trigger=trigger, typing_path=typing_path) == kind


class _Attributes(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.by_id: dict[str, dict[str, str]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if "id" in found:
            self.by_id[found["id"]] = found


@pytest.mark.django_db
def test_the_box_sends_the_light_path_first_and_the_full_list_on_a_longer_pause(rf, make_user):  # type: ignore[no-untyped-def]
    """GIVEN the header search box WHEN it is rendered THEN its own request goes to the typing URL
    after a short pause, the pause element's to the full search after a longer one, no URL pushed
    for the light list, and all three (box, pause, form) share one sync point that replaces."""
    request = rf.get("/")
    request.user = make_user("reader")
    parser = _Attributes()
    parser.feed(render_to_string("base.html", {"user": request.user}, request=request))
    box, pause, form = parser.by_id["q"], parser.by_id[as_you_type.PAUSE_ID], parser.by_id["search-form"]
    assert box["hx-get"] == "/search/typing/" and box["hx-target"] == "#typing-list"
    assert box["hx-push-url"] == "false"
    assert pause["hx-get"] == "/search/" and pause["hx-push-url"] == "true"
    assert box["hx-trigger"] == "input changed delay:150ms"
    assert pause["hx-trigger"] == "input changed delay:1000ms from:#q"
    assert box["hx-sync"] == pause["hx-sync"] == "closest form:replace" and form["hx-sync"] == "this:replace"


def test_typed_terms():  # type: ignore[no-untyped-def]
    assert typed_terms("Congés pay") == ["conges", "pay"]  # folded as the index folds titles
    assert typed_terms("how do I claim exp") == ["claim", "exp"]  # stop-words go…
    assert typed_terms("how do I req") == ["req"]
    assert typed_terms("how do I") == ["how", "do"]  # …unless the line holds nothing else
    assert typed_terms("annual le") == ["annual", "le"]  # …but not the word being typed
    assert typed_terms("annual l") == ["annual"]  # one letter narrows nothing: it waits
    assert typed_terms("l") == [] and typed_terms("  ") == [] and typed_terms("'); --") == []
    assert typed_terms("a b c d e f g h") == []
    assert len(typed_terms(" ".join(f"word{n}" for n in range(20)))) == MAX_TERMS


def test_parse_sequence():  # type: ignore[no-untyped-def]
    assert parse_sequence("1733300000123") == 1733300000123
    assert parse_sequence(None) is None and parse_sequence("") is None and parse_sequence("-3") is None
    assert parse_sequence("12x") is None and parse_sequence("9" * 17) is None


# --- The prefix list: only pages the reader may read ------------------------------------------


@pytest.mark.django_db
def test_titles_and_headings_by_prefix(kw, make_page):  # type: ignore[no-untyped-def]
    bob = kw["bob"]
    matches = prefix_matches(user=bob, text="remo")
    assert [h.page_id for h in matches.pages] == [kw["ids"]["remote"]]
    assert matches.pages[0].url == kw["pages"]["remote"].get_absolute_url()
    assert matches.headings == []  # its only heading repeats its title: not listed twice
    travel = make_page(kw["pages"]["remote"].space, "Travel", "# Travel\n\n## Train tickets\n\nBook early.\n")
    sections = prefix_matches(user=bob, text="train tick").headings
    assert [(h.page_id, h.heading, h.title) for h in sections] == [(travel.pk, "Train tickets", "Travel")]
    assert sections[0].url == travel.get_absolute_url() + "#train-tickets"
    # Every typed word by prefix, accents folded on both sides: the page holding both words comes
    # first, then one holding only "pa" ("Parking").
    assert [h.page_id for h in prefix_matches(user=bob, text="conges pa").pages] == [
        kw["ids"][r] for r in ("conges", "parking")
    ]
    assert [h.page_id for h in prefix_matches(user=bob, text="TÉLÉTRAV").pages] == [kw["ids"]["teletravail"]]
    assert prefix_matches(user=bob, text="office acc").pages[0].page_id == kw["ids"]["access"]


@pytest.mark.django_db
def test_prefix_list_never_names_a_page_the_reader_cannot_read(kw, make_user, make_page):  # type: ignore[no-untyped-def]
    """GIVEN pages hidden from Bob (another space; a restricted page) WHEN Bob types their titles'
    words THEN neither their titles nor their headings come back; Alice, who may read them, gets them."""
    salary = kw["pages"]["salary"]
    make_page(salary.space, "Bonus", "# Bonus\n\n## Bonus scheme\n\nCANARY.\n", restricted_to=("payroll",))
    for text in ("salary", "sal", "dismiss", "salary bands", "dismissal procedure", "bonus sch"):
        seen = prefix_matches(user=kw["bob"], text=text)
        assert not seen, (text, seen)
    alice = prefix_matches(user=kw["alice"], text="sal")
    assert [h.page_id for h in alice.pages] == [kw["ids"]["salary"]]
    assert [h.heading for h in prefix_matches(user=kw["alice"], text="bonus sch").headings] == ["Bonus scheme"]
    nobody = make_user("nobody")  # in no group: reads nothing
    assert not prefix_matches(user=nobody, text="remote")


@pytest.mark.django_db
def test_filters_and_templates(kw, make_page):  # type: ignore[no-untyped-def]
    bob = kw["bob"]
    assert not prefix_matches(user=bob, text="remote", space="finance")
    assert prefix_matches(user=bob, text="expense", space="finance").pages
    assert not prefix_matches(user=bob, text="remote", language="fr").pages
    template = make_page(kw["pages"]["remote"].space, "Remote template", "# Remote template\n\nText.")
    template.is_template = True
    template.save(update_fields=["is_template"])
    assert template.pk not in {h.page_id for h in prefix_matches(user=bob, text="remote").pages}


@pytest.mark.django_db
def test_prefix_statements_use_the_prefix_indexes(kw):  # type: ignore[no-untyped-def]
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        for sql, index in (
            ("FROM handbook_page WHERE to_tsvector('simple', search_fold(title))", "page_title_prefix"),
            (
                "FROM search_chunk WHERE heading <> '' AND to_tsvector('simple', search_heading_leaf(heading))",
                "chunk_heading_leaf_prefix",
            ),
        ):
            cursor.execute(f"EXPLAIN SELECT 1 {sql} @@ to_tsquery('simple', 'remo:*')")
            assert index in " ".join(row[0] for row in cursor.fetchall())
        cursor.execute("SELECT search_fold('Œuvre À L’ÉTÉ Straße')")
        assert cursor.fetchone()[0] == "oeuvre a l'ete strasse"
        cursor.execute("SELECT search_heading_leaf('Congés › Report des JOURS › Œuvres')")
        assert cursor.fetchone()[0] == "oeuvres"  # the innermost heading alone


# --- The view: fragments, drops ----------------------------------------------------------------


@pytest.mark.django_db
def test_typing_view_answers_a_light_fragment(client, kw):  # type: ignore[no-untyped-def]
    client.force_login(kw["bob"])
    response = client.get("/search/typing/", {"q": "remo", "seq": "5"}, **HX_LIGHT)
    body = response.content.decode()
    assert response.status_code == 200
    assert 'data-typing-query="remo"' in body and "Remote work" in body and 'id="results"' not in body
    assert "Salary" not in body
    # Opened as a page (no htmx): the search the line stands for.
    page = client.get("/search/typing/", {"q": "remote work", "space": "people"})
    assert page.status_code == 302 and page["Location"] == "/search/?q=remote+work&space=people"


@pytest.mark.django_db
def test_typing_view_requires_login(client):  # type: ignore[no-untyped-def]
    response = client.get("/search/typing/", {"q": "remote"}, **HX_LIGHT)
    assert response.status_code == 204 and "/accounts/login/" in response["HX-Redirect"]  # session expired
    assert "/accounts/login/" in client.get("/search/typing/", {"q": "remote"})["Location"]


@pytest.mark.django_db
def test_a_keystroke_older_than_one_already_seen_is_dropped(client, kw, django_assert_max_num_queries):  # type: ignore[no-untyped-def]
    """GIVEN keystroke 7 of a session was answered WHEN keystroke 6 of that session starts (it waited
    in another worker's queue) THEN it answers 204 at once, without the prefix statements; another
    session's keystrokes are its own."""
    cache.clear()
    client.force_login(kw["bob"])
    assert client.get("/search/typing/", {"q": "remote w", "seq": "7"}, **HX_LIGHT).status_code == 200
    with django_assert_max_num_queries(3):  # session, user, nothing of search
        stale = client.get("/search/typing/", {"q": "remote", "seq": "6"}, **HX_LIGHT)
    assert stale.status_code == 204 and stale.content == b""
    assert client.get("/search/typing/", {"q": "remote wo", "seq": "8"}, **HX_LIGHT).status_code == 200
    other = type(client)()
    other.force_login(kw["bob"])  # the same person in another browser: another session
    assert other.get("/search/typing/", {"q": "remote", "seq": "1"}, **HX_LIGHT).status_code == 200
    # No number (an old page, a script): never dropped as stale.
    assert client.get("/search/typing/", {"q": "remote"}, **HX_LIGHT).status_code == 200


@pytest.mark.django_db
def test_superseded_keeps_the_newest_number():  # type: ignore[no-untyped-def]
    cache.clear()
    assert not superseded(session_key="s1", sequence=10)
    assert superseded(session_key="s1", sequence=9)
    assert not superseded(session_key="s1", sequence=10)  # the same keystroke again (a retry)
    assert not superseded(session_key="s1", sequence=11)
    assert superseded(session_key="s1", sequence=10)
    assert not superseded(session_key="s2", sequence=1)
    assert not superseded(session_key="s1", sequence=None) and not superseded(session_key="", sequence=1)


def test_a_closed_connection_is_gone():  # type: ignore[no-untyped-def]
    import socket

    left, right = socket.socketpair()
    try:
        assert not as_you_type.client_gone({"gunicorn.socket": left})  # connected, nothing sent
        right.close()
        assert as_you_type.client_gone({"gunicorn.socket": left})  # htmx aborted: the browser closed it
    finally:
        left.close()
    assert not as_you_type.client_gone({})  # not under gunicorn: never gone

    class TlsSocket:
        def recv(self, size: int, flags: int) -> bytes:
            raise ValueError("non-zero flags not allowed in calls to recv()")

    assert not as_you_type.client_gone({"gunicorn.socket": TlsSocket()})  # cannot tell: do the work


@pytest.mark.django_db
def test_the_pause_list_is_typing_no_log_no_translation(client, kw):  # type: ignore[no-untyped-def]
    from search.models import SearchLog, SearchMiss

    client.force_login(kw["bob"])
    headers = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TRIGGER": as_you_type.PAUSE_ID}
    body = client.get("/search/", {"q": "remote work"}, **headers).content.decode()
    assert 'id="results"' in body and "data-search-log" not in body
    client.get("/search/", {"q": "xyzzyplugh"}, **headers)
    assert not SearchLog.objects.exists() and not SearchMiss.objects.exists()


@pytest.mark.django_db
def test_the_list_speaks_french(client, kw, make_page):  # type: ignore[no-untyped-def]
    make_page(kw["pages"]["remote"].space, "Equipment", "# Equipment\n\n## Remote screens\n\nOne each.\n")
    client.force_login(kw["bob"])
    client.cookies["django_language"] = "fr"
    body = client.get("/search/typing/", {"q": "remo"}, **HX_LIGHT).content.decode()
    assert "Rechercher « remo »" in body and "Appuyez sur Entrée" in body and "Sections" in body
