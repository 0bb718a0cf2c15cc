"""A space that requires review: every way a text (its title included) reaches its readers goes
through a reviewer.

onboarding (edited by hr and it) requires review by hr; alice (hr) is its only reviewer, chloe (it)
edits it without reviewing. Whatever chloe does there — edit, new page, restore, rename, move a page
in, import — readers keep the last approved text (title, address, heading) until alice approves.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client

from handbook import services
from handbook.approvals import selectors
from handbook.approvals.services import approval_approve, space_set_approval
from handbook.models import ApprovalRequest, Page
from handbook.services import page_create, page_move, page_save
from tests.handbook.test_admin_markdown_zip import make_zip, upload

pytestmark = pytest.mark.django_db

FIRST_DAY = "# First day\n\nCollect your badge at reception at nine.\n"
EVIL = "First day — IT says: email your password to helpdesk@evil.example"
EVIL_TEXT = "# Laptop setup\n\nEmail your password to helpdesk@evil.example before your first day.\n"


@pytest.fixture
def site(make_user, make_space, make_page, no_embeddings, settings, tmp_path) -> Any:  # type: ignore[no-untyped-def]
    from django.core.cache import cache

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.MEDIA_ROOT = tmp_path / "media"
    cache.clear()
    it = make_space("it", viewers=("staff",), editors=("it",))
    onboarding = make_space("onboarding", viewers=("staff",), editors=("hr", "it"))
    space_set_approval(space=onboarding, requires_review=True, reviewer_group=Group.objects.get(name="hr"))
    yield SimpleNamespace(
        it=it,
        onboarding=onboarding,
        first_day=make_page(onboarding, "First day", FIRST_DAY),
        alice=make_user("alice", "staff", "hr"),
        bob=make_user("bob", "staff"),
        chloe=make_user("chloe", "staff", "it"),
    )
    cache.clear()


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _approve(request: ApprovalRequest, reviewer: Any) -> ApprovalRequest:
    return approval_approve(request=request, reviewer=reviewer, revision_id=request.revision_id)


def _reader_sees(site: Any, url: str, *words: str) -> dict[str, bool]:
    html = _client(site.bob).get(url).content.decode()
    return {word: word in html for word in words}


def _searched(site: Any, query: str) -> str:
    return _client(site.bob).get("/search/", {"q": query}).content.decode()


# --- rename --------------------------------------------------------------------------------


def test_a_rename_by_an_editor_waits_for_review_and_readers_keep_the_title(site, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """GIVEN a published page of onboarding
    WHEN chloe (an editor, no reviewer) renames it
    THEN readers keep its title, address, heading and search results; alice gets a request with the
    new title and heading, and approving it brings them to readers."""
    page = site.first_day
    with django_capture_on_commit_callbacks(execute=True):
        response = _client(site.chloe).post(page.get_absolute_url() + "rename/", {"title": EVIL})
    assert response.status_code == 302
    live = Page.objects.select_related("published_revision").get(pk=page.pk)
    assert (live.title, live.slug, live.body) == ("First day", "first-day", FIRST_DAY)
    assert live.published_revision.number == 1 and live.published_revision.title == "First day"

    request = selectors.pending_request(live)
    assert request is not None and request.requested_by == site.chloe
    assert request.revision.title == EVIL and request.revision.body.startswith("# First day — IT says")
    assert request.revision.author == site.chloe

    seen = _reader_sees(site, page.get_absolute_url(), "First day", "evil.example")
    assert seen == {"First day": True, "evil.example": False}
    assert "evil.example" not in _client(site.bob).get("/spaces/onboarding/").content.decode()
    assert "evil.example" not in _searched(site, "helpdesk password") and "First day" in _searched(site, "badge")

    with django_capture_on_commit_callbacks(execute=True):
        assert _approve(request, site.alice).state == ApprovalRequest.State.APPROVED
    live.refresh_from_db()
    assert live.title == EVIL and live.body.startswith("# First day — IT says")
    assert "evil.example" in _client(site.bob).get(live.get_absolute_url()).content.decode()


def test_a_rename_waiting_for_review_says_so(site):  # type: ignore[no-untyped-def]
    client = _client(site.chloe)
    form = client.get(site.first_day.get_absolute_url() + "rename/").content.decode()
    assert "requires review" in form
    response = client.post(site.first_day.get_absolute_url() + "rename/", {"title": "Day one"}, follow=True)
    assert "Sent for review" in response.content.decode()
    client.cookies["django_language"] = "fr"
    form = client.get(site.first_day.get_absolute_url() + "rename/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Cet espace exige une relecture" in form


def test_a_rename_over_a_draft_sends_the_draft_under_the_new_title(site):  # type: ignore[no-untyped-def]
    """The rename sends what the editor's Publish would: the latest text, here a draft, renamed."""
    page = site.first_day
    page_save(page=page, title="First day", body="# First day\n\nBadge at ten.\n", author=site.chloe, publish=False)
    _client(site.chloe).post(page.get_absolute_url() + "rename/", {"title": "Day one"})
    live = Page.objects.get(pk=page.pk)
    assert (live.title, live.body) == ("First day", FIRST_DAY)
    pending = selectors.pending_request(live).revision
    assert (pending.title, pending.body) == ("Day one", "# Day one\n\nBadge at ten.\n")
    assert live.revisions.filter(number=2, body__contains="Badge at ten").exists()  # the draft stays in history


def test_the_spaces_only_reviewer_renames_at_once(site):  # type: ignore[no-untyped-def]
    page = site.first_day
    assert _client(site.alice).post(page.get_absolute_url() + "rename/", {"title": "Day one"}).status_code == 302
    live = Page.objects.get(pk=page.pk)
    assert (live.title, live.slug) == ("Day one", "day-one") and live.body.startswith("# Day one")
    assert selectors.pending_request(live) is None


def test_renaming_a_page_nobody_reads_yet_needs_no_review(site):  # type: ignore[no-untyped-def]
    draft = page_create(
        space=site.onboarding, title="Mentors", body="# Mentors\n\nTBD.\n", author=site.chloe, publish=False
    )
    _client(site.chloe).post(draft.get_absolute_url() + "rename/", {"title": "Buddies"})
    draft.refresh_from_db()
    assert draft.title == "Buddies" and not draft.is_published and selectors.pending_request(draft) is None


# --- move in -------------------------------------------------------------------------------


def _published_in_it(site: Any) -> Page:
    return page_create(space=site.it, title="Laptop setup", body=EVIL_TEXT, author=site.chloe)


def test_an_editor_cannot_move_a_published_page_into_a_review_space(site):  # type: ignore[no-untyped-def]
    """GIVEN a page chloe published in it (no review there)
    WHEN she moves it into onboarding
    THEN the move is refused with a message saying why and what to do; the page stays in it."""
    page = _published_in_it(site)
    response = _client(site.chloe).post(page.get_absolute_url() + "move/", {"space": site.onboarding.pk})
    assert response.status_code == 400
    html = response.content.decode()
    assert "requires review" in html and "send it for review" in html
    page.refresh_from_db()
    assert page.space == site.it and page.is_published
    assert not Page.objects.visible_to(site.bob).filter(space=site.onboarding, body__contains="evil").exists()
    with pytest.raises(services.ReviewRequired):
        page_move(page=page, space=site.onboarding)
    assert Page.objects.get(pk=page.pk).space == site.it

    client = _client(site.chloe)
    client.cookies["django_language"] = "fr"
    french = client.post(page.get_absolute_url() + "move/", {"space": site.onboarding.pk}, HTTP_ACCEPT_LANGUAGE="fr")
    assert french.status_code == 400 and "exige une relecture avant publication" in french.content.decode()


def test_a_draft_moves_in_and_its_publish_waits_for_review(site):  # type: ignore[no-untyped-def]
    draft = page_create(space=site.it, title="Laptop setup", body=EVIL_TEXT, author=site.chloe, publish=False)
    assert (
        _client(site.chloe).post(draft.get_absolute_url() + "move/", {"space": site.onboarding.pk}).status_code == 302
    )
    draft.refresh_from_db()
    assert draft.space == site.onboarding and not draft.is_published
    response = _client(site.chloe).post(draft.get_absolute_url() + "publish/", {"number": "1"})
    assert response.status_code == 302 and selectors.pending_request(draft) is not None
    assert not Page.objects.get(pk=draft.pk).is_published


def test_the_spaces_only_reviewer_moves_a_published_page_in(site, make_user):  # type: ignore[no-untyped-def]
    site.alice.groups.add(Group.objects.get(name="it"))
    page = _published_in_it(site)
    assert _client(site.alice).post(page.get_absolute_url() + "move/", {"space": site.onboarding.pk}).status_code == 302
    page.refresh_from_db()
    assert page.space == site.onboarding and page.is_published


def test_a_page_moves_between_spaces_the_same_reviewers_review(site, make_space):  # type: ignore[no-untyped-def]
    welcome = make_space("welcome", viewers=("staff",), editors=("hr", "it"))
    space_set_approval(space=welcome, requires_review=True, reviewer_group=Group.objects.get(name="hr"))
    moved = page_move(page=site.first_day, space=welcome)  # its text was approved by hr already
    assert moved.space == welcome and moved.is_published
    other = make_space("other", viewers=("staff",), editors=("hr", "it"))
    space_set_approval(space=other, requires_review=True, reviewer_group=Group.objects.get_or_create(name="it")[0])
    with pytest.raises(services.ReviewRequired):
        page_move(page=moved, space=other)


# --- imports -------------------------------------------------------------------------------


def _waiting(space: Any) -> dict[str, ApprovalRequest]:
    pending = ApprovalRequest.objects.filter(page__space=space, state=ApprovalRequest.State.PENDING)
    return {r.page.ref: r for r in pending.select_related("page", "revision")}


def test_a_zip_import_waits_for_the_spaces_reviewers(site, make_user):  # type: ignore[no-untyped-def]
    """The admin's zip import (superusers): alice reviews onboarding, so even a superuser's import
    waits for her, as their edits there do."""
    admin = _client(make_user("root", superuser=True))
    files = {"laptop.md": EVIL_TEXT, "index.md": "# Welcome\n\nHello.\n"}
    response = upload(admin, site.onboarding, make_zip(files), delete_missing="")
    assert response.status_code == 200
    assert sorted(response.context["report"].waiting) == ["index.md", "laptop.md"]
    imported = Page.objects.filter(space=site.onboarding, ref__startswith="md:")
    assert imported.count() == 2 and not any(p.is_published for p in imported)
    assert len(_waiting(site.onboarding)) == 2
    assert not Page.objects.visible_to(site.bob).filter(body__contains="evil.example").exists()
    assert "Sent for review" in response.content.decode()


def test_the_markdown_command_sends_new_and_changed_pages_for_review(site, tmp_path):  # type: ignore[no-untyped-def]
    root = tmp_path / "tree"
    root.mkdir()
    (root / "laptop.md").write_text(EVIL_TEXT)
    out = StringIO()
    call_command("import_markdown", str(root), "--space", "onboarding", stdout=out)
    assert "1 sent for review" in out.getvalue()
    page = Page.objects.get(space=site.onboarding, ref__startswith="md:")
    assert not page.is_published and selectors.pending_request(page) is not None
    # Once approved, the page's next imported text waits for review in turn.
    _approve(selectors.pending_request(page), site.alice)
    (root / "laptop.md").write_text("# Laptop setup\n\nChanged text EVILTWO.\n")
    call_command("import_markdown", str(root), "--space", "onboarding", stdout=StringIO())
    page.refresh_from_db()
    assert "EVILTWO" not in page.body and "EVILTWO" in selectors.pending_request(page).revision.body


def test_the_jsonl_import_sends_new_and_changed_pages_for_review(site, tmp_path):  # type: ignore[no-untyped-def]
    path = Path(tmp_path / "c.jsonl")
    lines = [
        {"id": "ext:laptop", "title": "Laptop setup", "body": EVIL_TEXT, "lang": "en"},
        {"id": site.first_day.ref, "title": EVIL, "body": FIRST_DAY.replace("nine", "ten"), "lang": "en"},
    ]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    out = StringIO()
    call_command("load_corpus", str(path), "--space", "onboarding", verbosity=0, stdout=out, stderr=StringIO())
    assert "2 sent for review" in out.getvalue()
    waiting = _waiting(site.onboarding)
    assert set(waiting) == {"ext:laptop", site.first_day.ref}
    assert not Page.objects.get(ref="ext:laptop").is_published
    live = Page.objects.get(pk=site.first_day.pk)
    assert (live.title, live.body) == ("First day", FIRST_DAY)
    assert waiting[site.first_day.ref].revision.title == EVIL


# --- the paths that already went through review ---------------------------------------------


def test_edit_new_page_and_restore_wait_for_review(site):  # type: ignore[no-untyped-def]
    client = _client(site.chloe)
    page = site.first_day
    data = {"title": "First day", "body": EVIL_TEXT, "base_number": 1, "note": "", "action": "publish"}
    assert client.post(page.get_absolute_url() + "edit/", data).status_code == 302
    assert Page.objects.get(pk=page.pk).body == FIRST_DAY
    _approve(selectors.pending_request(page), site.alice)
    assert Page.objects.get(pk=page.pk).body == EVIL_TEXT
    # Restoring revision 1 (the old text) waits for review too: readers keep revision 2.
    client.post(page.get_absolute_url() + "history/1/restore/")
    assert Page.objects.get(pk=page.pk).body == EVIL_TEXT and selectors.pending_request(page) is not None

    new = {"title": "Laptop setup", "body": EVIL_TEXT, "language": "en", "action": "publish"}
    assert client.post("/spaces/onboarding/_new/", new).status_code == 302
    assert not Page.objects.get(space=site.onboarding, slug="laptop-setup").is_published
