"""Who is editing: recorded from the editor's poll, shown to the other editors of the page only,
gone once a closed editor's entry is older than the TTL."""

from __future__ import annotations

from typing import Any

import pytest

from comments import presence

pytestmark = pytest.mark.django_db

EMPTY = '<div class="presence__list"></div>'  # nobody else: the poll's answer says nothing


def url(page: Any, suffix: str) -> str:
    return f"/spaces/{page.space.slug}/{page.slug}/{suffix}"


def test_the_editor_polls_and_is_shown_to_the_other_editor(client, handbook, make_user):
    second = make_user("second", "staff", "hr-editors")
    second.first_name, second.last_name = "Alice", "<Martin>"
    second.save()
    edit_page = client.get(url(handbook.remote, "edit/"))  # not logged in yet: the login page
    assert edit_page.status_code == 302

    client.force_login(second)
    html = client.get(url(handbook.remote, "edit/")).content.decode()
    poll = url(handbook.remote, "editing-now/")
    assert f'hx-post="{poll}"' in html and 'hx-trigger="load, every 20s"' in html
    assert client.post(poll).content.decode().strip() == EMPTY  # alone on the page

    client.force_login(handbook.editor)
    shown = client.post(poll).content.decode()
    assert "Alice &lt;Martin&gt; is also editing this page." in shown  # names are escaped
    client.force_login(second)
    assert "editor is also editing this page." in client.post(poll).content.decode()


def test_readers_and_outsiders_are_neither_recorded_nor_shown(client, handbook):
    poll = url(handbook.remote, "editing-now/")
    client.force_login(handbook.reader)
    assert client.post(poll).status_code == 403
    client.force_login(handbook.outsider)
    assert client.post(poll).status_code == 404
    assert client.post(url(handbook.salary, "editing-now/")).status_code == 404
    assert presence.present_user_ids(page_id=handbook.remote.pk) == []
    client.force_login(handbook.editor)
    assert client.get(poll).status_code == 405  # recording is a POST


def test_an_entry_expires_after_the_ttl(handbook):
    now = 1_000_000.0
    presence.presence_record(page_id=handbook.remote.pk, user_id=handbook.editor.pk, now=now)
    presence.presence_record(page_id=handbook.remote.pk, user_id=handbook.admin.pk, now=now + 30)
    assert presence.other_editors(page=handbook.remote, user=handbook.reader, now=now + 40) == ["admin", "editor"]
    # The editor closed the page at `now`: three missed polls later only the admin is left.
    assert presence.other_editors(page=handbook.remote, user=handbook.reader, now=now + presence.TTL_S + 1) == ["admin"]
    assert presence.present_user_ids(page_id=handbook.minutes.pk, now=now) == []


def test_someone_who_lost_the_right_to_edit_stops_showing(handbook):
    from django.contrib.auth.models import Group

    presence.presence_record(page_id=handbook.remote.pk, user_id=handbook.editor.pk)
    assert presence.other_editors(page=handbook.remote, user=handbook.admin) == ["editor"]
    handbook.editor.groups.remove(Group.objects.get(name="hr-editors"))
    assert presence.other_editors(page=handbook.remote, user=handbook.admin) == []


def test_a_cache_that_fails_hides_presence_and_breaks_nothing(client, handbook, monkeypatch):
    def broken() -> Any:
        raise ConnectionError("redis is down")

    monkeypatch.setattr(presence, "_client", broken)
    client.force_login(handbook.editor)
    response = client.post(url(handbook.remote, "editing-now/"))
    assert response.status_code == 200 and response.content.decode().strip() == EMPTY


def test_saving_over_a_newer_save_still_shows_the_conflict(client, handbook):
    """Presence warns; the edit conflict page (handbook) still guards the text."""
    client.force_login(handbook.editor)
    client.post(url(handbook.remote, "editing-now/"))
    first = {"title": "Remote work", "body": "Mine", "base_number": 1, "action": "publish"}
    assert client.post(url(handbook.remote, "edit/"), first).status_code == 302
    client.force_login(handbook.admin)
    theirs = {"title": "Remote work", "body": "Theirs", "base_number": 1, "action": "publish"}
    assert client.post(url(handbook.remote, "edit/"), theirs).status_code == 409
