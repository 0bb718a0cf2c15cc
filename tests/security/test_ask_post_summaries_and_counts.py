"""Ask by POST, summaries of hidden pages, and consistent result counts.

6. Asking is logged and rate limited, so only an explicit submit asks: a POST with
   the CSRF token. ``GET /ask/?q=…`` shows the form and costs nothing, and a
   Markdown image may load only the handbook's own files, never an application
   URL that every reader's browser would then fetch as that reader.
9. Once a new revision is published, the summary of an older one is not shown:
   the page says the summary is being updated until the new one is ready.
Also: the result count, the facets and the listed pages come from one result set,
and a page number past the end shows the last page.
"""

from __future__ import annotations

import functools
import re
from html.parser import HTMLParser
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client

from handbook.markdown import render_markdown
from handbook.services import page_save

pytestmark = pytest.mark.django_db

QUESTION = "how many days can staff work from home?"
REMOTE_WORK = (
    "# Remote work\n\nStaff may work from home up to three days a week.\n\n"
    "Managers approve remote days in the team calendar.\n"
)


@pytest.fixture
def site(make_user, make_space, make_page, no_embeddings, settings) -> Any:  # type: ignore[no-untyped-def]
    from django.core.cache import cache

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.SEARCH_RATE_LIMIT = "100000/m"
    cache.clear()  # no rate-limit counters or cached answers from an earlier test
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    yield SimpleNamespace(
        hr=hr,
        remote=make_page(hr, "Remote work", REMOTE_WORK),
        reader=make_user("reader", "staff"),
        editor=make_user("alice", "staff", "hr-editors"),
    )
    cache.clear()


def _client(user: Any, **kwargs: Any) -> Client:
    client = Client(**kwargs)
    client.force_login(user)
    return client


def _logs() -> int:
    from search.models import AskLog

    return AskLog.objects.count()


class _Images(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.sources: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.sources.append(dict(attrs).get("src") or "")


def _image_sources(html: str) -> list[str]:
    parser = _Images()
    parser.feed(html)
    return parser.sources


# --- 6. Ask only on an explicit submit ---------------------------------------------------


def test_ask_by_get_logs_nothing_and_costs_no_rate_limit(site, settings):
    """GIVEN a rate limit of one question a minute
    WHEN the reader's browser GETs /ask/?q=… (a link, an image, another site), plain and htmx
    THEN nothing is logged and the one allowed question is still there for a real submit."""
    settings.ASK_RATE_LIMIT = "1/m"
    client = _client(site.reader)
    for extra in ({}, {"HTTP_HX_REQUEST": "true"}):
        for _ in range(3):
            response = client.get("/ask/", {"q": QUESTION}, **extra)
            assert response.status_code == 200
            html = response.content.decode()
            assert f'value="{QUESTION}"' in html  # the form, filled in
            assert "citation" not in html and "too quickly" not in html
    assert client.get("/ask/stream/", {"q": QUESTION}).status_code == 405
    assert _logs() == 0

    html = client.post("/ask/", {"q": QUESTION}).content.decode()
    assert "too quickly" not in html and 'class="citations"' in html  # an answer, sure or unsure, lists its sources
    assert _logs() == 1


def test_ask_needs_a_post_with_the_csrf_token(site):
    client = _client(site.reader, enforce_csrf_checks=True)
    assert client.post("/ask/", {"q": QUESTION}).status_code == 403
    assert client.post("/ask/stream/", {"q": QUESTION}).status_code == 403
    assert _logs() == 0

    form = client.get("/ask/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)
    assert token, "the Ask form carries the CSRF token"
    response = client.post("/ask/", {"q": QUESTION, "csrfmiddlewaretoken": token.group(1)})
    assert response.status_code == 200 and 'class="citations"' in response.content.decode()
    assert _logs() == 1
    # The search page's panel and the stream send it as a header, as htmx does.
    stream = client.post("/ask/stream/", {"q": QUESTION}, HTTP_X_CSRFTOKEN=client.cookies["csrftoken"].value)
    assert b"event: done" in b"".join(stream.streaming_content)
    assert _logs() == 2


def test_search_panel_asks_by_post(site):
    html = _client(site.reader).get("/search/", {"q": QUESTION}).content.decode()
    panel = re.search(r'<div id="ask-answer"[^>]*>', html)
    assert panel, "a question gets an Ask panel"
    assert 'hx-post="/ask/"' in panel.group(0) and 'data-stream-url="/ask/stream/"' in panel.group(0)
    assert "hx-get" not in panel.group(0) and "?q=" not in panel.group(0)
    assert _logs() == 0  # showing the results asked nothing yet


@pytest.mark.parametrize(
    "src",
    [
        "/ask/?q=a",
        "/ask/stream/?q=a",
        "/search/?q=salary",
        "/spaces/hr/remote-work/",
        "/spaces/hr/remote-work/edit/",
        "/admin/",
        "/accounts/logout/",
        "/healthz",
        "/logo.png",
        "http://testserver/ask/?q=a",
        "//testserver/ask/?q=a",
        "../../../ask/?q=a",
        "../../ask",
        "edit/",
        "edit",
        "?q=a",
        "/files/../ask/?q=a",
        "/files/%2e%2e/ask/",
        "/static/..%2Fask%2F",
        "/files/x.png?q=1",
        "img/..%2f..%2f..%2fask",
        "/files\\..\\ask",
    ],
)
def test_images_never_point_at_application_urls(src):
    html = render_markdown(f"Look: ![chart {len(src)}]({src})")
    assert _image_sources(html) == []
    assert f"chart {len(src)}" in html  # the alt text stays
    from handbook.markdown import image_source_allowed, sanitize_html

    assert not image_source_allowed(src)
    assert _image_sources(sanitize_html(f'<img src="{src}" alt="x">')) == []  # the sanitiser's own check


@pytest.mark.parametrize("src", ["/files/org-chart.png", "/attachments/12/plan.svg", "img/map.png", "diagram.webp"])
def test_images_of_the_handbooks_own_files_are_kept(src):
    assert _image_sources(render_markdown(f"![map]({src})")) == [src]
    from handbook.markdown import image_source_allowed

    assert image_source_allowed(src)


def test_a_page_with_an_ask_image_asks_nothing_for_its_readers(site, make_page):
    page = make_page(site.hr, "Benefits", "# Benefits\n\n![x](/ask/?q=what+is+the+salary+grid%3F) Lunch is free.\n")
    html = _client(site.reader).get(page.get_absolute_url()).content.decode()
    assert "Lunch is free" in html
    assert not any("/ask/" in src for src in _image_sources(html))
    assert _logs() == 0


# --- 9. no summary of an older revision --------------------------------------------------

REMOVED = "Managers approve remote days in the team calendar."


def test_removed_text_leaves_the_summary_as_soon_as_the_revision_is_published(site, django_capture_on_commit_callbacks):
    """GIVEN revision 1 with a ready summary that quotes a sentence
    WHEN an editor publishes revision 2 without it, before revision 2's summary is ready
    THEN the page shows none of revision 1's summary, and says the summary is being updated."""
    from summaries.models import Summary

    old = Summary.objects.get(page=site.remote, status=Summary.Status.READY)
    assert REMOVED in old.text  # the summary does quote it
    client = _client(site.reader)
    assert REMOVED in client.get(site.remote.get_absolute_url()).content.decode()

    with django_capture_on_commit_callbacks(execute=False):  # the summary task has not run yet
        page_save(page=site.remote, title="Remote work", body=REMOTE_WORK.replace(REMOVED, ""), author=site.editor)
    html = client.get(site.remote.get_absolute_url()).content.decode()
    assert REMOVED not in html and old.text not in html
    assert "The page changed since; the summary is being updated." in html
    assert 'class="summary__text"' not in html

    french = client.get(site.remote.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert REMOVED not in french
    assert "le résumé est en cours de mise à jour" in french


def test_summary_for_page_never_returns_an_older_revisions_summary(site, make_user, django_capture_on_commit_callbacks):
    from summaries.selectors import summary_for_page

    with django_capture_on_commit_callbacks(execute=True):  # the summary task runs (eagerly)
        page_save(page=site.remote, title="Remote work", body=REMOTE_WORK.replace(REMOVED, ""), author=site.editor)
    site.remote.refresh_from_db()
    summary, updating = summary_for_page(page=site.remote, user=site.reader)
    assert summary is not None and REMOVED not in summary.text and not updating

    from summaries.models import Summary

    Summary.objects.filter(pk=summary.pk).delete()  # as if the task had not run yet
    assert summary_for_page(page=site.remote, user=site.reader) == (None, True)
    assert summary_for_page(page=site.remote, user=make_user("eve")) == (None, False)


# --- Also: the count, the facets and the list agree --------------------------------------

BADGE_EN = "# {title}\n\nThe visitor badge is collected at the front desk.\n"
BADGE_FR = "# {title}\n\nLe badge visiteur se retire à l'accueil.\n"


@pytest.fixture
def badges(site, make_space, make_page) -> Any:  # type: ignore[no-untyped-def]
    it = make_space("it", viewers=("staff",), editors=("it-editors",))
    for n in range(4):
        make_page(site.hr if n % 2 else it, f"Badge rules {n}", BADGE_EN.format(title=f"Badge rules {n}"))
    for n in range(4):
        title = f"Règles des badges {n}"
        make_page(site.hr if n % 2 else it, title, BADGE_FR.format(title=title), language="fr")
    return site


@pytest.fixture
def shallow_lists(monkeypatch):  # type: ignore[no-untyped-def]
    """Each retrieval list cut after a few chunks, as a big handbook cuts at LEG_DEPTH: a filter
    then changes where the cut falls, which is how a filtered count came to differ from its facet."""
    from search import selectors
    from search.retrieval import pipeline as retrieval

    monkeypatch.setattr(selectors, "retrieve", functools.partial(retrieval.retrieve, depth=5))


def test_count_facets_and_list_agree_under_every_filter(badges, shallow_lists):
    from search.selectors import search_pages

    user = badges.reader
    unfiltered = search_pages(user=user, query="badge", per_page=50)
    assert unfiltered.total == len(unfiltered.results) > 0
    languages = {code: n for code, _name, n in unfiltered.facets["language"]}
    spaces = {slug: n for slug, _title, n in unfiltered.facets["space"]}
    assert sum(languages.values()) == sum(spaces.values()) == unfiltered.total
    for code in ("en", "fr"):
        shown = search_pages(user=user, query="badge", language=code, per_page=50)
        assert shown.total == len(shown.results) == languages.get(code, 0), code
        assert {r.language for r in shown.results} <= {code}
        assert {c: n for c, _name, n in shown.facets["language"]}.get(code, 0) == shown.total
        for slug, _title, n in shown.facets["space"]:  # each space facet: what clicking it shows
            both = search_pages(user=user, query="badge", language=code, space=slug, per_page=50)
            assert both.total == len(both.results) == n, (code, slug)
    for slug in ("hr", "it"):
        shown = search_pages(user=user, query="badge", space=slug, per_page=50)
        assert shown.total == len(shown.results) == spaces.get(slug, 0), slug


def test_page_number_past_the_end_shows_the_last_page(badges):
    from search.selectors import search_pages

    everything = search_pages(user=badges.reader, query="badge", per_page=50)
    assert everything.total > 3
    last = -(-everything.total // 3)
    shown = search_pages(user=badges.reader, query="badge", per_page=3, page=999)
    assert shown.page == last and shown.results and not shown.has_next and shown.has_previous
    assert shown.total == everything.total

    html = _client(badges.reader).get("/search/", {"q": "badge", "page": "999"}).content.decode()
    assert "No page matches" not in html
    found = re.search(r"(\d+) pages found", html)
    assert found and int(found.group(1)) == everything.total
    assert html.count('class="result"') == everything.total - 10 * (-(-everything.total // 10) - 1)
