"""Pages past their review-by date: listed on Insights to whoever answers for them, e-mailed to owners.

Nobody is ever shown or sent a page they cannot read.
"""

from __future__ import annotations

import datetime
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.core import mail

from handbook.models import Page
from handbook.review_digest import review_digests_send
from handbook.tasks import send_review_digests
from search.insights.pages_to_review import pages_to_review

pytestmark = pytest.mark.django_db

PAST = datetime.date(2020, 1, 1)
FUTURE = datetime.date(2999, 1, 1)


@pytest.fixture
def due(handbook, make_user, make_page) -> SimpleNamespace:  # type: ignore[no-untyped-def]
    """remote (hr): owned by hreditor, overdue. salary (hr, payroll only): owned by the hr-editors group,
    overdue. vpn (it): no owner, overdue. handbook "Leave" page (hr): owned by hreditor, not due yet."""
    leave = make_page(handbook.hr, "Leave", "# Leave\n\nTwenty-five days.\n")
    hr_group = Group.objects.get(name="hr-editors")
    Page.objects.filter(pk=handbook.remote.pk).update(owner_user=handbook.editor, review_by=PAST)
    Page.objects.filter(pk=handbook.salary.pk).update(owner_group=hr_group, review_by=PAST)
    Page.objects.filter(pk=handbook.vpn.pk).update(review_by=PAST)
    Page.objects.filter(pk=leave.pk).update(owner_user=handbook.editor, review_by=FUTURE)
    Page.objects.filter(pk=handbook.minutes.pk).update(owner_user=handbook.editor, review_by=PAST)  # unreadable
    payroll_editor = make_user("payed", "staff", "payroll", "hr-editors")
    root = make_user("root", superuser=True)
    for user in (handbook.editor, handbook.admin, handbook.both, payroll_editor, root, handbook.reader):
        user.email = f"{user.username}@example.com"
        user.save()
    return SimpleNamespace(h=handbook, leave=leave, payroll_editor=payroll_editor, root=root)


def _titles(user) -> list[str]:  # type: ignore[no-untyped-def]
    return [page.title for page in pages_to_review(user)]


def test_owner_sees_their_overdue_pages_only(due):
    assert _titles(due.h.editor) == ["Remote work"]  # not Leave (not due), not Board minutes (unreadable)


def test_an_unrelated_editor_of_the_space_does_not_see_an_owned_page(due):
    assert "Remote work" not in _titles(due.h.admin)
    assert _titles(due.h.admin) == []  # in hr-editors, but Salary bands is for payroll only


def test_group_owners_and_editors_of_unowned_pages(due):
    assert _titles(due.payroll_editor) == ["Salary bands"]  # member of the owner group, reads it
    assert _titles(due.h.both) == ["VPN access"]  # no owner, in a space they edit


def test_superuser_sees_every_overdue_page(due):
    assert _titles(due.root) == ["Board minutes", "Remote work", "Salary bands", "VPN access"]


def test_readers_and_anonymous_see_nothing(due):
    from django.contrib.auth.models import AnonymousUser

    assert _titles(due.h.reader) == [] and _titles(AnonymousUser()) == []


def test_insights_lists_pages_to_review(client, due):
    client.force_login(due.h.editor)
    page = client.get("/insights/").content.decode()
    assert "Pages to review" in page and "Remote work" in page
    assert "Salary bands" not in page and "Board minutes" not in page and "VPN access" not in page
    assert ">Leave<" not in page
    client.force_login(due.h.admin)
    page = client.get("/insights/").content.decode()
    assert "Remote work" not in page and "Salary bands" not in page and "No pages to review." in page


def test_insights_never_lists_a_page_the_viewer_cannot_read(client, due):
    """Salary bands belongs to the hr-editors group; an hr editor outside payroll never sees it."""
    for user in (due.h.editor, due.h.admin, due.h.both):
        client.force_login(user)
        body = client.get("/insights/").content.decode()
        assert "Salary bands" not in body and "bandsecret" not in body and "Board minutes" not in body


def test_insights_in_french(client, due):
    client.force_login(due.h.editor)
    page = client.get("/insights/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Pages à relire" in page and "Responsable" in page and "vous" in page and "jamais" in page


def test_digest_goes_to_owners_with_only_their_overdue_pages(due):
    assert review_digests_send() == 2
    by_recipient = {message.to[0]: message for message in mail.outbox}
    assert set(by_recipient) == {"hreditor@example.com", "payed@example.com"}
    mine = by_recipient["hreditor@example.com"]
    assert "Remote work" in mine.body and mine.subject == "1 handbook page to review"
    assert "Leave" not in mine.body and "Board minutes" not in mine.body and "Salary bands" not in mine.body
    assert "/spaces/hr/remote-work/" in mine.body and mine.from_email == settings.DEFAULT_FROM_EMAIL
    group = by_recipient["payed@example.com"]
    assert "Salary bands" in group.body and "Remote work" not in group.body
    # hradmin and both are in the owner group but may not read Salary bands; VPN access has no owner.
    assert all("VPN access" not in m.body for m in mail.outbox)


def test_digest_skips_owners_without_address_or_inactive(due):
    due.h.editor.email = ""
    due.h.editor.save()
    due.payroll_editor.is_active = False
    due.payroll_editor.save()
    assert review_digests_send() == 0 and mail.outbox == []


def test_digest_links_use_the_site_address(due, settings):
    settings.SITE_URL = "https://handbook.example.com/"
    review_digests_send()
    mine = next(m for m in mail.outbox if m.to == ["hreditor@example.com"])
    assert "https://handbook.example.com/spaces/hr/remote-work/" in mine.body


def test_digest_in_french(due, settings):
    settings.LANGUAGE_CODE = "fr"
    review_digests_send()
    mine = next(m for m in mail.outbox if m.to == ["hreditor@example.com"])
    assert mine.subject == "1 page du manuel à relire"
    assert "Marquer comme relue" in mine.body and "à relire avant le" in mine.body


def test_daily_task_sends_the_digest(due):
    assert send_review_digests.delay().get() == 2
    assert len(mail.outbox) == 2
    schedule = {entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()}
    assert "handbook.tasks.send_review_digests" in schedule
