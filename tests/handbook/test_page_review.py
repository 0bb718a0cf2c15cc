"""Page review in the editor: owner and review-by date, "Mark as reviewed", what readers see."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth.models import Group
from django.db import IntegrityError
from django.utils import timezone

from handbook.models import Page
from handbook.review.selectors import add_months
from tests.handbook.conftest import url

pytestmark = pytest.mark.django_db


def _form(page: Page, action: str = "publish", **review: str) -> dict[str, object]:
    page.refresh_from_db()
    latest = page.revisions.order_by("-number").first()
    data = {"title": page.title, "body": latest.body, "base_number": latest.number, "action": action, "note": ""}
    data.update({"owner": "", "review_by": "", **review})
    return data


def test_owner_choices_are_the_people_and_groups_who_may_edit(client, handbook):
    client.force_login(handbook.editor)
    page = client.get(url(handbook.remote, "edit")).content.decode()
    hr_editors = Group.objects.get(name="hr-editors")
    assert f'value="group:{hr_editors.pk}"' in page
    assert f'value="user:{handbook.editor.pk}"' in page and f'value="user:{handbook.both.pk}"' in page
    assert f'value="user:{handbook.reader.pk}"' not in page  # reads the space, does not edit it
    it_editors = Group.objects.get(name="it-editors")
    assert f'value="group:{it_editors.pk}"' not in page
    assert 'name="mark_reviewed"' in page and 'type="date"' in page


def test_owner_and_review_by_are_set_from_the_form(client, handbook):
    client.force_login(handbook.editor)
    response = client.post(
        url(handbook.remote, "edit"), _form(handbook.remote, owner=f"user:{handbook.both.pk}", review_by="2031-03-15")
    )
    assert response.status_code == 302
    handbook.remote.refresh_from_db()
    assert handbook.remote.owner_user == handbook.both and handbook.remote.owner_group is None
    assert handbook.remote.review_by == datetime.date(2031, 3, 15)
    assert handbook.remote.last_reviewed_at is None  # not ticked
    group = Group.objects.get(name="hr-editors")
    client.post(url(handbook.remote, "edit"), _form(handbook.remote, owner=f"group:{group.pk}", review_by="2031-03-15"))
    handbook.remote.refresh_from_db()
    assert handbook.remote.owner_group == group and handbook.remote.owner_user is None


def test_an_owner_who_may_not_edit_is_refused(client, handbook):
    client.force_login(handbook.editor)
    for forged in (f"user:{handbook.reader.pk}", f"group:{Group.objects.get(name='it-editors').pk}", "user:999999"):
        response = client.post(url(handbook.remote, "edit"), _form(handbook.remote, owner=forged, body="changed"))
        assert response.status_code == 400
    handbook.remote.refresh_from_db()
    assert handbook.remote.owner_user is None and handbook.remote.owner_group is None
    assert handbook.remote.revisions.count() == 1  # nothing saved


def test_a_page_has_one_owner_at_most(handbook):
    Page.objects.filter(pk=handbook.remote.pk).update(owner_user=handbook.editor)
    with pytest.raises(IntegrityError):
        Page.objects.filter(pk=handbook.remote.pk).update(owner_group=Group.objects.get(name="hr-editors"))


def test_publishing_without_a_review_date_sets_one_a_period_ahead(client, handbook):
    handbook.hr.review_months = 6
    handbook.hr.save()
    client.force_login(handbook.editor)
    client.post(url(handbook.remote, "edit"), {**_form(handbook.remote), "body": "New text."})
    handbook.remote.refresh_from_db()
    assert handbook.remote.review_by == add_months(timezone.localdate(), 6)
    assert handbook.remote.last_reviewed_at is None


def test_mark_as_reviewed_moves_the_date_and_readers_see_it(client, handbook):
    Page.objects.filter(pk=handbook.remote.pk).update(review_by=datetime.date(2020, 1, 31))
    handbook.remote.refresh_from_db()
    edited_at = handbook.remote.updated_at
    client.force_login(handbook.reader)
    assert "Last reviewed" not in client.get(url(handbook.remote)).content.decode()  # only when set

    client.force_login(handbook.editor)
    form = _form(handbook.remote, review_by="2020-01-31", mark_reviewed="on")  # the text itself is unchanged
    response = client.post(url(handbook.remote, "edit"), form, follow=True)
    assert "Marked as reviewed." in response.content.decode()
    handbook.remote.refresh_from_db()
    assert handbook.remote.last_reviewed_at is not None
    assert handbook.remote.review_by == add_months(timezone.localdate(), 12)
    assert handbook.remote.updated_at == edited_at  # a review is not an edit
    assert handbook.remote.revisions.count() == 1

    client.force_login(handbook.reader)
    page = client.get(url(handbook.remote)).content.decode()
    assert "Last reviewed on" in page


def test_mark_as_reviewed_keeps_a_date_the_editor_typed(client, handbook):
    client.force_login(handbook.editor)
    client.post(url(handbook.remote, "edit"), _form(handbook.remote, review_by="2030-05-01", mark_reviewed="on"))
    handbook.remote.refresh_from_db()
    assert handbook.remote.review_by == datetime.date(2030, 5, 1) and handbook.remote.last_reviewed_at


def test_a_draft_changes_nothing_readers_see(client, handbook):
    Page.objects.filter(pk=handbook.remote.pk).update(review_by=datetime.date(2020, 1, 1))
    handbook.remote.refresh_from_db()
    before = (handbook.remote.updated_at, handbook.remote.body, handbook.remote.last_editor_id)
    client.force_login(handbook.both)
    form = _form(handbook.remote, action="draft", review_by="2020-01-01", mark_reviewed="on")
    form["body"] = "A draft nobody reads yet."
    response = client.post(url(handbook.remote, "edit"), form, follow=True)
    assert "Not marked as reviewed" in response.content.decode()
    handbook.remote.refresh_from_db()
    assert handbook.remote.last_reviewed_at is None
    assert handbook.remote.review_by == datetime.date(2020, 1, 1)  # neither moved nor defaulted
    assert (handbook.remote.updated_at, handbook.remote.body, handbook.remote.last_editor_id) == before
    client.force_login(handbook.reader)
    page = client.get(url(handbook.remote)).content.decode()
    assert "Last reviewed" not in page and "A draft nobody reads yet." not in page


def test_a_draft_keeps_the_owner_chosen(client, handbook):
    """The owner is an editorial setting readers never see: a draft saves it too."""
    client.force_login(handbook.editor)
    form = _form(handbook.remote, action="draft", owner=f"user:{handbook.editor.pk}")
    client.post(url(handbook.remote, "edit"), {**form, "body": "Draft."})
    handbook.remote.refresh_from_db()
    assert handbook.remote.owner_user == handbook.editor and handbook.remote.review_by is None


def test_a_form_without_review_fields_leaves_them_alone(client, handbook):
    """The edit-conflict page posts title and text only: the review settings stay."""
    Page.objects.filter(pk=handbook.remote.pk).update(owner_user=handbook.editor, review_by=datetime.date(2030, 1, 1))
    client.force_login(handbook.editor)
    form = _form(handbook.remote)
    del form["owner"], form["review_by"]
    client.post(url(handbook.remote, "edit"), {**form, "body": "Merged text."})
    handbook.remote.refresh_from_db()
    assert handbook.remote.body == "Merged text." and handbook.remote.owner_user == handbook.editor
    assert handbook.remote.review_by == datetime.date(2030, 1, 1)


def test_the_current_owner_stays_a_choice_after_losing_edit_rights(client, handbook):
    Page.objects.filter(pk=handbook.remote.pk).update(owner_user=handbook.reader)
    client.force_login(handbook.editor)
    response = client.post(url(handbook.remote, "edit"), _form(handbook.remote, owner=f"user:{handbook.reader.pk}"))
    assert response.status_code == 302


def test_add_months_clamps_to_the_month_end():
    assert add_months(datetime.date(2027, 1, 31), 1) == datetime.date(2027, 2, 28)
    assert add_months(datetime.date(2027, 11, 15), 14) == datetime.date(2029, 1, 15)
    assert add_months(datetime.date(2028, 2, 29), 12) == datetime.date(2029, 2, 28)


def test_french_editor_and_page(client, handbook):
    Page.objects.filter(pk=handbook.remote.pk).update(last_reviewed_at=timezone.now())
    client.force_login(handbook.editor)
    editor = client.get(url(handbook.remote, "edit"), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    for text in ("Marquer comme relue", "Responsable", "À relire avant le", "Relecture", "Relue le"):
        assert text in editor, text
    client.force_login(handbook.reader)
    page = client.get(url(handbook.remote), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Relue le" in page and "Last reviewed" not in page
