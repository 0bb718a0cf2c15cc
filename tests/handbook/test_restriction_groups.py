"""A page's restriction fails closed: the group it is restricted to cannot be deleted from under it.

Before: deleting ``secops`` (admin or ORM) cascaded to the restriction rows, the page had none left,
and "no restriction rows" reads as "unrestricted": the page opened to the whole space.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.db.models import ProtectedError

from handbook.models import Page
from handbook.permissions import can_read
from handbook.services import page_set_restrictions

pytestmark = pytest.mark.django_db


@pytest.fixture
def secops_page(make_user, make_space, make_page):  # type: ignore[no-untyped-def]
    space = make_space("it", viewers=("staff",), editors=("it-editors",))
    page = make_page(space, "Incident keys", "# Keys\n\nsecopscanary", restricted_to=("secops",), index=False)
    return page, make_user("reader", "staff"), make_user("analyst", "staff", "secops")


def test_a_restricting_group_cannot_be_deleted(secops_page):  # type: ignore[no-untyped-def]
    page, reader, analyst = secops_page
    with pytest.raises(ProtectedError):
        Group.objects.get(name="secops").delete()
    assert not can_read(reader, page) and can_read(analyst, page)


def test_the_admin_refuses_with_a_clear_message(secops_page, client, make_user):  # type: ignore[no-untyped-def]
    page, reader, analyst = secops_page
    client.force_login(make_user("root", superuser=True, staff=True))
    secops = Group.objects.get(name="secops")
    url = f"/admin/auth/group/{secops.pk}/delete/"

    shown = client.get(url)
    assert shown.status_code == 200
    text = shown.content.decode()
    assert "would require deleting the following protected related objects" in text
    assert "Incident keys" in text and "remove the restriction first" in text

    refused = client.post(url, {"post": "yes"})
    assert refused.status_code == 200
    assert Group.objects.filter(pk=secops.pk).exists()
    # The changelist's bulk "delete selected" action is refused the same way.
    bulk = client.post("/admin/auth/group/", {"action": "delete_selected", "_selected_action": [secops.pk]})
    assert bulk.status_code == 200 and "protected" in bulk.content.decode()
    bulk = client.post(
        "/admin/auth/group/", {"action": "delete_selected", "_selected_action": [secops.pk], "post": "yes"}
    )
    assert bulk.status_code == 200 and Group.objects.filter(pk=secops.pk).exists()
    assert not can_read(reader, page) and can_read(analyst, page)


def test_once_no_page_uses_it_the_group_can_go(secops_page):  # type: ignore[no-untyped-def]
    page, reader, _analyst = secops_page
    page_set_restrictions(page=page, groups=[])
    Group.objects.get(name="secops").delete()
    assert can_read(reader, page)


def test_restrictions_keep_their_table_and_scope_triggers(secops_page):  # type: ignore[no-untyped-def]
    """The through model is the old auto-created table: migration 0005's triggers still stamp scopes."""
    from handbook.models import PageRestriction, ScopeStamp

    page, _reader, _analyst = secops_page
    assert PageRestriction._meta.db_table == "handbook_page_restricted_to_groups"
    assert Page.restricted_to_groups.through is PageRestriction

    def stamps() -> dict[tuple[int, ...], int]:
        rows = ScopeStamp.objects.filter(space_id=page.space_id).values_list("groups", "stamp")
        return {tuple(groups): stamp for groups, stamp in rows}

    secops, hr = Group.objects.get(name="secops"), Group.objects.create(name="hr")
    before = stamps()
    page_set_restrictions(page=page, groups=[hr])
    after = stamps()
    assert after[(secops.pk,)] != before[(secops.pk,)] and (hr.pk,) in after


def test_the_admin_still_edits_a_page_restriction(secops_page, client, make_user):  # type: ignore[no-untyped-def]
    page, reader, analyst = secops_page
    client.force_login(make_user("root", superuser=True, staff=True))
    url = f"/admin/handbook/page/{page.pk}/change/"
    form = client.get(url)
    assert form.status_code == 200
    secops = Group.objects.get(name="secops")
    assert f'<option value="{secops.pk}" selected>secops</option>' in form.content.decode()
    staff = Group.objects.get(name="staff")
    revisions = page.revisions.count()
    data = {
        "title": page.title,
        "parent": "",
        "restrictions": [secops.pk, staff.pk],
        "revisions-TOTAL_FORMS": revisions,
        "revisions-INITIAL_FORMS": revisions,
        "revisions-MIN_NUM_FORMS": 0,
        "revisions-MAX_NUM_FORMS": 1000,
    }
    for n, revision in enumerate(page.revisions.all()):
        data[f"revisions-{n}-id"] = revision.pk
        data[f"revisions-{n}-page"] = page.pk
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert set(page.restricted_to_groups.values_list("name", flat=True)) == {"secops", "staff"}
    assert can_read(reader, page)  # staff may now read it
    client.post(url, {**data, "restrictions": []})
    assert not page.restricted_to_groups.exists()
