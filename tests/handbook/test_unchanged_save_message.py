"""Saving a published page without a change says so: "Nothing changed.", not "Published." again."""

from __future__ import annotations

import pytest

from tests.handbook.conftest import REMOTE_WORK, url

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("action", ["draft", "publish"])
def test_an_untouched_published_page_says_nothing_changed(client, handbook, action):
    client.force_login(handbook.editor)
    count = handbook.remote.revisions.count()
    data = {"title": "Remote work", "body": REMOTE_WORK, "base_number": count, "action": action}
    response = client.post(url(handbook.remote, "edit"), data, follow=True)
    shown = [str(m) for m in response.context["messages"]]
    assert shown == ["Nothing changed."]
    assert handbook.remote.revisions.count() == count


def test_publishing_a_saved_draft_says_published(client, handbook):
    client.force_login(handbook.editor)
    body = REMOTE_WORK + "\nDesks are booked a day ahead.\n"
    count = handbook.remote.revisions.count()
    client.post(url(handbook.remote, "edit"), {"title": "Remote work", "body": body, "base_number": count}, follow=True)
    data = {"title": "Remote work", "body": body, "base_number": count + 1, "action": "publish"}
    response = client.post(url(handbook.remote, "edit"), data, follow=True)
    assert [str(m) for m in response.context["messages"]] == ["Published."]
    handbook.remote.refresh_from_db()
    assert handbook.remote.body == body
