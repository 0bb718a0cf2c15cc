"""Editing views and permissions: what editors may do and see.

1. Every spelling that logs in as an account shares that account's login lock.
4. Renaming changes the title, the address and the text's opening ``# <old title>``
   only: it never publishes a draft and never republishes the old text
   over a pending draft.
5. Saving a draft changes nothing a reader sees: not the last editor, not the
   update time, not the order of "Recently updated".
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client

from handbook.models import Page, Revision
from handbook.services import page_create, page_publish, page_save

pytestmark = pytest.mark.django_db

REMOTE_WORK = "# Remote work\n\nStaff may work from home up to three days a week.\n"
DRAFT_TEXT = "# Remote work\n\nStaff may work from home every day of the week.\n"


@pytest.fixture
def site(make_user, make_space, make_page, no_embeddings, settings) -> Any:  # type: ignore[no-untyped-def]
    from django.core.cache import cache

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.SEARCH_RATE_LIMIT = settings.ASK_RATE_LIMIT = "100000/m"
    cache.clear()  # no login counters or cached searches from an earlier test
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    older = make_page(hr, "Expense claims", "# Expense claims\n\nClaims are paid monthly.\n")
    remote = make_page(hr, "Remote work", REMOTE_WORK)
    yield SimpleNamespace(
        hr=hr,
        older=older,
        remote=remote,
        reader=make_user("reader", "staff"),
        editor=make_user("alice", "staff", "hr-editors"),
        david=make_user("david", "staff"),
    )
    cache.clear()


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _edit_url(page: Page) -> str:
    return page.get_absolute_url() + "edit/"


# --- 1. login lockout and look-alike usernames -------------------------------------------

# Each of these logs in as "david": authentication normalises the name (NFKC).
LOOK_ALIKES = ["ｄavid", "\U0001d41david", "dａvid", "ｄａｖｉｄ", "DAVID", " david "]


def _login(client: Client, username: str, password: str) -> int:
    return client.post("/accounts/login/", {"username": username, "password": password}).status_code


def test_look_alike_spellings_really_log_in_as_the_account(site):  # type: ignore[no-untyped-def]
    # The premise of the finding: without a lock, each spelling reaches david's account.
    for spelling in ["ｄavid", "\U0001d41david", "dａvid"]:
        client = Client()
        assert _login(client, spelling, "pw-david") == 302, spelling


def test_locked_account_is_locked_under_every_spelling(site, settings):  # type: ignore[no-untyped-def]
    """GIVEN david locked after LOGIN_RATE_LIMIT wrong passwords
    WHEN any spelling that authentication maps to david tries the right password
    THEN it is refused (429), like david itself."""
    settings.LOGIN_RATE_LIMIT = "3/m"
    client = Client()
    for _ in range(3):
        assert _login(client, "david", "wrong") == 200
    assert _login(client, "david", "pw-david") == 429
    for spelling in LOOK_ALIKES:
        assert _login(client, spelling, "pw-david") == 429, spelling


def test_failures_under_look_alike_spellings_count_against_the_account(site, settings):  # type: ignore[no-untyped-def]
    settings.LOGIN_RATE_LIMIT = "3/m"
    client = Client()
    for spelling in ["ｄavid", "\U0001d41david", "dａvid"]:
        assert _login(client, spelling, "wrong") == 200
    assert _login(client, "david", "pw-david") == 429
    # Another account from the same address keeps its own counter.
    assert _login(client, "reader", "pw-reader") == 302


def test_odd_usernames_are_refused_cleanly(site):  # type: ignore[no-untyped-def]
    client = Client()
    for username in ["da\x00vid", "d" * 5000, "", "\u3000"]:
        assert _login(client, username, "pw-david") == 200, repr(username[:10])


# --- 4. rename never publishes -------------------------------------------------------------


def test_renaming_a_never_published_draft_keeps_it_hidden(site, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """GIVEN a draft that was never published (404 for a reader)
    WHEN its editor renames it
    THEN it is still a draft: 404 for the reader, absent from search, its text unchanged."""
    draft = page_create(
        space=site.hr,
        title="Draft layoffs plan",
        body="# Draft layoffs plan\n\nThe warehouse team is cut by half in spring.\n",
        author=site.editor,
        publish=False,
    )
    reader = _client(site.reader)
    assert reader.get(draft.get_absolute_url()).status_code == 404

    with django_capture_on_commit_callbacks(execute=True):
        response = _client(site.editor).post(draft.get_absolute_url() + "rename/", {"title": "Spring restructuring"})
    assert response.status_code == 302
    draft.refresh_from_db()
    assert draft.title == "Spring restructuring" and draft.slug == "spring-restructuring"
    assert draft.status == Page.Status.DRAFT
    assert draft.published_revision_id is None
    assert draft.body == ""  # nothing was published
    latest = draft.revisions.order_by("-number").first()
    assert latest.body == "# Spring restructuring\n\nThe warehouse team is cut by half in spring.\n"
    assert latest.title == "Spring restructuring"  # publishing it later keeps the new name

    assert reader.get(draft.get_absolute_url()).status_code == 404
    assert reader.get("/spaces/hr/draft-layoffs-plan/").status_code == 404  # the old address reveals nothing
    for query in ["restructuring", "warehouse", "layoffs"]:
        html = reader.get("/search/", {"q": query}).content.decode()
        assert "Spring restructuring" not in html and "/spaces/hr/spring-restructuring/" not in html, query


def test_renaming_a_page_with_a_pending_draft_keeps_the_draft_pending(site, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """GIVEN a published page with a newer draft
    WHEN it is renamed
    THEN readers see the old published text under the new title (its heading
    renamed), and the draft is still pending with its text (its heading renamed)."""
    remote = site.remote
    published_before = remote.published_revision_id
    page_save(page=remote, title="Remote work", body=DRAFT_TEXT, author=site.editor, publish=False)

    editor = _client(site.editor)
    with django_capture_on_commit_callbacks(execute=True):
        response = editor.post(remote.get_absolute_url() + "rename/", {"title": "Working from home"})
    assert response["Location"] == "/spaces/hr/working-from-home/"
    remote.refresh_from_db()
    assert remote.published_revision_id != published_before  # the same text, its heading renamed
    assert remote.status == Page.Status.PUBLISHED
    assert remote.body == REMOTE_WORK.replace("# Remote work", "# Working from home")

    html = _client(site.reader).get("/spaces/hr/working-from-home/").content.decode()
    assert "Working from home" in html
    assert "up to three days a week" in html and "every day of the week" not in html

    # The draft is still pending, with its own text, and the editor is told so.
    latest = remote.revisions.order_by("-number").first()
    assert latest.number > remote.published_revision.number
    assert latest.body == DRAFT_TEXT.replace("# Remote work", "# Working from home")
    assert "unpublished changes" in editor.get("/spaces/hr/working-from-home/").content.decode()
    edit_form = editor.get(_edit_url(remote)).content.decode()
    assert "every day of the week" in edit_form and 'value="Working from home"' in edit_form

    # Publishing the draft later brings its text, and the new title stays.
    page_publish(page=remote, revision=latest, author=site.editor)
    remote.refresh_from_db()
    assert remote.title == "Working from home" and remote.body == latest.body


def test_renaming_a_published_page_writes_only_its_heading(site, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    remote = site.remote
    renamed = REMOTE_WORK.replace("# Remote work", "# Telework policy")
    before = list(Revision.objects.filter(page=remote).values_list("number", "title", "body"))
    with django_capture_on_commit_callbacks(execute=True):
        _client(site.editor).post(remote.get_absolute_url() + "rename/", {"title": "Telework policy"})
    remote.refresh_from_db()
    after = [(2, "Telework policy", renamed), *before]  # the same text under its new heading (newest first)
    assert list(Revision.objects.filter(page=remote).values_list("number", "title", "body")) == after
    assert remote.title == "Telework policy" and remote.body == renamed
    # The index follows the title, which is part of every chunk's vector.
    html = _client(site.reader).get("/search/", {"q": "telework"}).content.decode()
    assert "Telework policy" in html

    # The editor starts from the new title, and saving the text keeps it.
    editor = _client(site.editor)
    assert 'value="Telework policy"' in editor.get(_edit_url(remote)).content.decode()
    editor.post(
        _edit_url(remote),
        {"title": "Telework policy", "body": renamed, "base_number": 2, "action": "publish"},
    )
    assert list(Revision.objects.filter(page=remote).values_list("number", "title", "body")) == after  # no change
    page_save(page=remote, title="Telework policy", body=DRAFT_TEXT, author=site.editor)
    remote.refresh_from_db()
    assert remote.title == "Telework policy" and remote.body == DRAFT_TEXT


# --- 5. drafts are invisible to readers ------------------------------------------------------


def _reader_view(client: Client, page: Page) -> tuple[str, str]:
    """The parts of the reader's pages that say who edited what and when."""
    page_html = client.get(page.get_absolute_url()).content.decode()
    home_html = client.get("/").content.decode()
    meta = re.search(r'<p class="meta">.*?</p>', page_html, re.DOTALL)
    recent = re.search(r'<section aria-labelledby="recent-title">.*?</section>', home_html, re.DOTALL)
    assert meta is not None and recent is not None
    return meta.group(0), recent.group(0)


def test_saving_a_draft_changes_nothing_a_reader_sees(site):  # type: ignore[no-untyped-def]
    """GIVEN two published pages, "Remote work" the more recently updated
    WHEN an editor saves a draft of the older one
    THEN the reader's page header (last editor, time) and "Recently updated" list are unchanged."""
    reader = _client(site.reader)
    before = _reader_view(reader, site.older)
    recent_before = before[1]
    assert recent_before.index("Remote work") < recent_before.index("Expense claims")

    response = _client(site.editor).post(
        _edit_url(site.older),
        {"title": "Expense claims", "body": "# Expense claims\n\nDraft: paid weekly.\n", "base_number": 1},
    )
    assert response.status_code == 302
    assert site.older.revisions.count() == 2  # the draft was saved

    after = _reader_view(reader, site.older)
    assert after == before
    assert "alice" not in after[0]


def test_publishing_still_shows_the_editor_and_moves_the_page_up(site):  # type: ignore[no-untyped-def]
    reader = _client(site.reader)
    _client(site.editor).post(
        _edit_url(site.older),
        {"title": "Expense claims", "body": "# Expense claims\n\nWeekly.\n", "base_number": 1, "action": "publish"},
    )
    meta, recent = _reader_view(reader, site.older)
    assert "Last edited by alice" in meta
    assert recent.index("Expense claims") < recent.index("Remote work")
