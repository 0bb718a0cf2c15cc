"""Editing: permissions on every action, drafts and publishing, conflicts, history, rename, move, delete."""

from __future__ import annotations

import pytest
from django.test import Client

from handbook.models import Page, SlugRedirect
from handbook.services import page_save
from tests.handbook.conftest import url

pytestmark = pytest.mark.django_db

ACTIONS = ["edit", "history", "rename", "move", "delete", "access"]


@pytest.mark.parametrize("action", ACTIONS)
def test_reader_who_is_not_an_editor_gets_403(client, handbook, action):
    client.force_login(handbook.reader)
    assert client.get(url(handbook.remote, action)).status_code == 403


@pytest.mark.parametrize("action", ACTIONS)
def test_user_who_cannot_read_gets_404(client, handbook, action):
    client.force_login(handbook.editor)  # hr editor, not in payroll: cannot read Salary bands
    assert client.get(url(handbook.salary, action)).status_code == 404
    client.force_login(handbook.outsider)
    assert client.get(url(handbook.remote, action)).status_code == 404


def test_non_editor_posts_change_nothing(client, handbook):
    client.force_login(handbook.reader)
    body = {"title": "Hacked", "body": "x", "base_number": 1, "action": "publish"}
    assert client.post(url(handbook.remote, "edit"), body).status_code == 403
    assert client.post(url(handbook.remote, "publish"), {"number": 1}).status_code == 403
    assert client.post(url(handbook.remote, "move"), {"space": handbook.it.pk}).status_code == 403
    assert client.post(url(handbook.remote, "delete")).status_code == 403
    assert client.post(url(handbook.remote, "rename"), {"title": "Hacked"}).status_code == 403
    assert client.post(url(handbook.remote, "history/1/restore")).status_code == 403
    assert client.post("/spaces/hr/_new/", {"title": "Spam", "language": "en", "action": "publish"}).status_code == 403
    handbook.remote.refresh_from_db()
    assert handbook.remote.title == "Remote work" and handbook.remote.deleted_at is None
    assert handbook.remote.space == handbook.hr


def test_editor_creates_a_draft_then_publishes_it(client, handbook):
    client.force_login(handbook.editor)
    response = client.post(
        "/spaces/hr/_new/",
        {"title": "Parental leave", "language": "en", "body": "# Parental leave\n\nSixteen weeks.", "action": "draft"},
    )
    page = Page.objects.get(title="Parental leave")
    assert response["Location"] == url(page, "edit") and not page.is_published
    assert "Parental leave" in client.get("/spaces/hr/").content.decode()  # listed under drafts
    client.force_login(handbook.reader)
    assert client.get(url(page)).status_code == 404
    client.force_login(handbook.editor)
    response = client.post(
        url(page, "edit"),
        {
            "title": "Parental leave",
            "body": "# Parental leave\n\nSixteen weeks.",
            "base_number": 1,
            "action": "publish",
        },
    )
    assert response["Location"] == url(page)
    client.force_login(handbook.reader)
    assert "Sixteen weeks." in client.get(url(page)).content.decode()


def test_create_under_a_parent(client, handbook):
    client.force_login(handbook.editor)
    client.post(
        "/spaces/hr/_new/",
        {"title": "Allowance", "language": "fr", "body": "x", "parent": handbook.remote.pk, "action": "publish"},
    )
    page = Page.objects.get(title="Allowance")
    assert page.parent == handbook.remote and page.language == "fr" and page.is_published


def test_create_refuses_a_parent_from_another_space(client, handbook):
    client.force_login(handbook.both)
    response = client.post(
        "/spaces/hr/_new/",
        {"title": "Orphan", "language": "en", "body": "x", "parent": handbook.vpn.pk, "action": "publish"},
    )
    assert response.status_code == 200 and not Page.objects.filter(title="Orphan").exists()


def test_draft_save_keeps_readers_on_the_published_text(client, handbook):
    client.force_login(handbook.editor)
    client.post(
        url(handbook.remote, "edit"),
        {"title": "Remote work", "body": "Work in progress", "base_number": 1, "action": "draft"},
    )
    handbook.remote.refresh_from_db()
    assert "three days" in handbook.remote.body
    html = client.get(url(handbook.remote)).content.decode()
    assert "unpublished changes" in html
    assert "Work in progress" in client.get(url(handbook.remote, "edit")).content.decode()  # editor resumes the draft


def test_preview_renders_sanitised_markdown(client, handbook):
    client.force_login(handbook.editor)
    response = client.post(
        "/preview/", {"body": "## Hi\n\n<script>alert(1)</script> [x](javascript:alert(1))"}, HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert '<h2 id="hi">Hi</h2>' in html
    assert "<script>" not in html and 'href="javascript' not in html
    assert "<html" not in html


def test_preview_button_without_javascript_saves_nothing(client, handbook):
    client.force_login(handbook.editor)
    response = client.post(
        url(handbook.remote, "edit"),
        {"title": "Remote work", "body": "# New text", "base_number": 1, "action": "preview"},
    )
    assert response.status_code == 200 and '<h1 id="new-text">New text</h1>' in response.content.decode()
    assert handbook.remote.revisions.count() == 1


def test_edit_conflict_keeps_both_texts(client, handbook):
    client.force_login(handbook.editor)
    client.get(url(handbook.remote, "edit"))  # the editor opens revision 1 ...
    page_save(page=handbook.remote, title="Remote work", body="Their change: two days.", author=handbook.admin)
    mine = "My change: four days."
    response = client.post(
        url(handbook.remote, "edit"), {"title": "Remote work", "body": mine, "base_number": 1, "action": "publish"}
    )
    html = response.content.decode()
    assert response.status_code == 409
    assert "Their change: two days." in html  # theirs, read-only
    assert f"\n{mine}</textarea>" in html  # yours, ready to submit again
    assert 'name="base_number" value="2"' in html
    handbook.remote.refresh_from_db()
    assert handbook.remote.body == "Their change: two days."  # nothing overwritten
    # Re-submitting from the conflict page is a deliberate overwrite and succeeds.
    client.post(
        url(handbook.remote, "edit"), {"title": "Remote work", "body": mine, "base_number": 2, "action": "publish"}
    )
    handbook.remote.refresh_from_db()
    assert handbook.remote.body == mine


def test_history_diff_and_restore(client, handbook):
    page_save(page=handbook.remote, title="Remote work", body="Only two days <now>.", author=handbook.admin)
    client.force_login(handbook.editor)
    history = client.get(url(handbook.remote, "history")).content.decode()
    assert "r1" in history and "r2" in history
    diff = client.get(url(handbook.remote, "history/2")).content.decode()
    assert "diff__line--add" in diff and "Only two days &lt;now&gt;." in diff
    assert "diff__line--del" in diff and "three days a week" in diff
    response = client.post(url(handbook.remote, "history/1/restore"))
    assert response.status_code == 302
    handbook.remote.refresh_from_db()
    assert "three days a week" in handbook.remote.body
    assert handbook.remote.revisions.count() == 3  # restoring adds a revision, history only grows


def test_revision_of_another_page_is_404(client, handbook):
    client.force_login(handbook.editor)
    assert client.get(url(handbook.remote, "history/99")).status_code == 404
    assert client.get(url(handbook.remote, "history/abc")).status_code == 404


def test_publish_a_given_revision(client, handbook):
    page_save(page=handbook.remote, title="Remote work", body="Draft text", publish=False)
    client.force_login(handbook.editor)
    assert client.post(url(handbook.remote, "publish"), {"number": "junk"}).status_code == 404
    assert client.post(url(handbook.remote, "publish"), {"number": 2}).status_code == 302
    handbook.remote.refresh_from_db()
    assert handbook.remote.body == "Draft text"


def test_rename_redirects_the_old_address(client, handbook):
    client.force_login(handbook.editor)
    old = url(handbook.remote)
    response = client.post(url(handbook.remote, "rename"), {"title": "Working from home"})
    assert response["Location"] == "/spaces/hr/working-from-home/"
    follow = client.get(old)
    assert follow.status_code == 301 and follow["Location"] == "/spaces/hr/working-from-home/"


def test_move_needs_edit_rights_on_both_spaces(client, handbook):
    client.force_login(handbook.editor)  # edits hr only
    response = client.post(url(handbook.remote, "move"), {"space": handbook.it.pk})
    assert response.status_code == 200 and "Select a valid choice" in response.content.decode()
    handbook.remote.refresh_from_db()
    assert handbook.remote.space == handbook.hr
    client.force_login(handbook.both)
    response = client.post(url(handbook.remote, "move"), {"space": handbook.it.pk})
    assert response["Location"] == "/spaces/it/remote-work/"
    assert SlugRedirect.objects.filter(space_slug="hr", page_slug="remote-work").exists()
    assert client.get("/spaces/hr/remote-work/")["Location"] == "/spaces/it/remote-work/"


def test_move_under_a_parent_in_the_same_space(client, handbook, make_page):
    child = make_page(handbook.hr, "Home office allowance", "x")
    client.force_login(handbook.editor)
    client.post(url(child, "move"), {"space": handbook.hr.pk, "parent": handbook.remote.pk})
    child.refresh_from_db()
    assert child.parent == handbook.remote
    # ... and no cycles: the parent cannot go under its own child.
    response = client.post(url(handbook.remote, "move"), {"space": handbook.hr.pk, "parent": child.pk})
    assert "own children" in response.content.decode()


def test_delete_is_soft_and_needs_confirmation(client, handbook):
    client.force_login(handbook.editor)
    assert b"Delete the page" in client.get(url(handbook.remote, "delete")).content
    assert client.post(url(handbook.remote, "delete"))["Location"] == "/spaces/hr/"
    page = Page.objects.get(pk=handbook.remote.pk)
    assert page.deleted_at is not None and page.revisions.count() == 1
    assert client.get(url(handbook.remote)).status_code == 404


def test_csrf_is_enforced_on_edits(handbook):
    client = Client(enforce_csrf_checks=True)
    client.force_login(handbook.editor)
    response = client.post(
        url(handbook.remote, "edit"), {"title": "x", "body": "y", "base_number": 1, "action": "publish"}
    )
    assert response.status_code == 403
    assert client.post(url(handbook.remote, "delete")).status_code == 403
    handbook.remote.refresh_from_db()
    assert handbook.remote.deleted_at is None and handbook.remote.title == "Remote work"
