"""Space groups and page restrictions, edited by space admins only."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from tests.handbook.conftest import url

pytestmark = pytest.mark.django_db


def test_space_admin_changes_readers_and_it_takes_effect(client, handbook):
    staff, board = Group.objects.get(name="staff"), Group.objects.get(name="board")
    editors = Group.objects.get(name="hr-editors")
    client.force_login(handbook.admin)
    assert client.get("/spaces/hr/_access/").status_code == 200
    response = client.post("/spaces/hr/_access/", {"viewer_groups": [board.pk], "editor_groups": [editors.pk]})
    assert response.status_code == 302
    assert list(handbook.hr.viewer_groups.all()) == [board]
    client.force_login(handbook.reader)  # in "staff", which no longer reads hr
    assert client.get("/spaces/hr/").status_code == 404
    assert "Remote work" not in client.get("/search/", {"q": "screen"}).content.decode()
    assert staff.pk  # the group itself is untouched


def test_editor_who_is_not_staff_cannot_manage_access(client, handbook):
    client.force_login(handbook.editor)
    assert client.get("/spaces/hr/_access/").status_code == 403
    assert client.post("/spaces/hr/_access/", {"viewer_groups": []}).status_code == 403
    assert handbook.hr.viewer_groups.exists()
    client.force_login(handbook.admin)
    assert client.get("/spaces/it/_access/").status_code == 403  # admin of hr, not it
    client.force_login(handbook.outsider)
    assert client.get("/spaces/hr/_access/").status_code == 404


def test_page_restriction_hides_the_page(client, handbook):
    payroll = Group.objects.get(name="payroll")
    client.force_login(handbook.admin)
    response = client.post(url(handbook.remote, "access"), {"restricted_to_groups": [payroll.pk]})
    assert response.status_code == 302
    client.force_login(handbook.reader)
    assert client.get(url(handbook.remote)).status_code == 404


def test_space_admin_cannot_reopen_a_page_they_cannot_read(client, handbook):
    # hradmin administers hr but is not in payroll: Salary bands is invisible to them,
    # so they must not be able to lift (or change) its restriction.
    client.force_login(handbook.admin)
    assert client.get(url(handbook.salary, "access")).status_code == 404
    assert client.post(url(handbook.salary, "access"), {"restricted_to_groups": []}).status_code == 404
    assert handbook.salary.restricted_to_groups.exists()
