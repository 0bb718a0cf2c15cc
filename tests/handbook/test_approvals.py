"""Review before publishing (handbook/approvals/): requests, decisions, who may decide, what readers see."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.core import mail

from handbook.approvals import selectors
from handbook.approvals.services import approval_approve, page_submit, space_set_approval
from handbook.models import ApprovalRequest, Page
from handbook.services import page_save

State = ApprovalRequest.State
pytestmark = pytest.mark.django_db


@pytest.fixture
def review(handbook, make_user) -> Any:  # type: ignore[no-untyped-def]
    """hr requires review by "hr-reviewers": ruth and rita review (both also edit hr)."""
    space_set_approval(
        space=handbook.hr, requires_review=True, reviewer_group=Group.objects.get_or_create(name="hr-reviewers")[0]
    )
    return SimpleNamespace(
        **vars(handbook),
        ruth=make_user("ruth", "staff", "hr-editors", "hr-reviewers"),
        rita=make_user("rita", "staff", "hr-editors", "hr-reviewers"),
    )


def _edit(client: Any, page: Page, body: str, action: str = "publish") -> Any:
    latest = page.revisions.order_by("-number").first()
    data = {"title": page.title, "body": body, "base_number": latest.number, "note": "", "action": action}
    return client.post(page.get_absolute_url() + "edit/", data)


def _decision(page: Page, decision: str, **more: str) -> dict[str, Any]:
    """The decision form's data for the page's pending request, as its approval page names it."""
    request = selectors.pending_request(page)
    assert request is not None
    return {"decision": decision, "request": request.pk, "revision": request.revision_id, **more}


def test_publish_by_an_author_opens_a_request_and_readers_keep_the_published_text(client, review):
    client.force_login(review.editor)
    response = _edit(client, review.remote, "# Remote work\n\nFour days PENDINGTEXT.\n")
    assert response.status_code == 302
    page = Page.objects.get(pk=review.remote.pk)
    assert "PENDINGTEXT" not in page.body and page.published_revision.number == 1
    request = selectors.pending_request(page)
    assert request is not None and request.revision.number == 2 and request.requested_by == review.editor
    client.force_login(review.reader)
    body = client.get(page.get_absolute_url()).content.decode()
    assert "three days" in body and "PENDINGTEXT" not in body
    client.force_login(review.editor)
    editor = client.get(page.get_absolute_url() + "edit/").content.decode()
    assert "Waiting for review" in editor and "Send for review" in editor


def test_a_reviewer_approves_from_insights_and_the_revision_records_it(client, review):
    client.force_login(review.editor)
    _edit(client, review.remote, "# Remote work\n\nFour days a week.\n")
    client.force_login(review.ruth)
    insights = client.get("/insights/").content.decode()
    assert "Waiting for your review" in insights and "/spaces/hr/remote-work/approval/" in insights
    detail = client.get("/spaces/hr/remote-work/approval/").content.decode()
    assert "Approve and publish" in detail
    assert "<ins>Four</ins>" in detail and "<del>Staff may work from home up to three</del>" in detail, detail
    response = client.post("/spaces/hr/remote-work/approval/", _decision(review.remote, "approve"))
    assert response.status_code == 302
    page = Page.objects.select_related("published_revision").get(pk=review.remote.pk)
    assert "Four days" in page.body and page.published_revision.approved_by == review.ruth
    assert page.published_revision.approved_at is not None and page.last_editor == review.editor
    assert page.review_by is not None  # the owners' review date follows the publish
    client.force_login(review.editor)
    assert "Approved by ruth" in client.get(page.get_absolute_url() + "edit/").content.decode()


def test_changes_requested_need_a_comment_and_reach_the_author(client, review):
    client.force_login(review.editor)
    _edit(client, review.remote, "# Remote work\n\nFour days.\n")
    client.force_login(review.ruth)
    assert client.post("/spaces/hr/remote-work/approval/", _decision(review.remote, "changes")).status_code == 400
    client.post(
        "/spaces/hr/remote-work/approval/", _decision(review.remote, "changes", comment="Cite the policy number.")
    )
    page = Page.objects.get(pk=review.remote.pk)
    assert "three days" in page.body
    assert selectors.latest_request(page).state == State.CHANGES_REQUESTED
    client.force_login(review.editor)
    editor = client.get(page.get_absolute_url() + "edit/").content.decode()
    assert "Changes requested" in editor and "Cite the policy number." in editor


def test_a_new_page_waits_for_approval_and_nobody_reads_it_before(client, review):
    client.force_login(review.editor)
    response = client.post(
        "/spaces/hr/_new/",
        {"title": "Parental leave", "body": "# Leave\n\nSixteen weeks.", "language": "en", "action": "publish"},
    )
    page = Page.objects.get(slug="parental-leave")
    assert response.status_code == 302 and not page.is_published and selectors.pending_request(page) is not None
    assert not Page.objects.visible_to(review.reader).filter(pk=page.pk).exists()
    client.force_login(review.reader)
    assert client.get(page.get_absolute_url()).status_code == 404
    pending = selectors.pending_request(page)
    approval_approve(request=pending, reviewer=review.rita, revision_id=pending.revision_id)
    assert Page.objects.visible_to(review.reader).filter(pk=page.pk).exists()


def test_nobody_approves_their_own_text_unless_the_only_reviewer(client, review):
    page = review.remote
    submitted = page_submit(
        page=page, author=review.ruth, publish=True, review=None, title=page.title, body="Ruth's text"
    )
    assert submitted.request is not None  # rita could approve: ruth's publish goes to review
    client.force_login(review.ruth)
    assert client.post("/spaces/hr/remote-work/approval/", _decision(page, "approve")).status_code == 403
    assert "Another reviewer" in client.get("/spaces/hr/remote-work/approval/").content.decode()
    assert submitted.request not in selectors.waiting_for(review.ruth)
    assert submitted.request in selectors.waiting_for(review.rita)
    # rita leaves the group: ruth is the only reviewer and publishes at once, as her own approver.
    review.rita.groups.remove(Group.objects.get(name="hr-reviewers"))
    assert submitted.request in selectors.waiting_for(review.ruth)
    done = page_submit(page=page, author=review.ruth, publish=True, review=None, title=page.title, body="Ruth again")
    assert done.request is None and done.result.published
    assert Page.objects.get(pk=page.pk).published_revision.approved_by == review.ruth


def test_only_reviewers_who_may_edit_the_page_decide(client, review, make_user):
    client.force_login(review.editor)
    _edit(client, review.remote, "# Remote work\n\nFour days.\n")
    request = selectors.pending_request(review.remote)
    assert (
        client.post("/spaces/hr/remote-work/approval/", _decision(review.remote, "approve")).status_code == 403
    )  # an author
    reviewer_only = make_user("gus", "staff", "hr-reviewers")  # in the group, but no editor of hr
    assert not selectors.can_decide(reviewer_only, request) and selectors.waiting_for(reviewer_only) == []
    client.force_login(review.reader)
    assert client.get("/spaces/hr/remote-work/approval/").status_code == 403
    client.force_login(review.outsider)
    assert client.get("/spaces/hr/remote-work/approval/").status_code == 404
    # A restricted page: a reviewer outside its groups is no reviewer of it.
    pat = make_user("pat", "staff", "hr-editors", "payroll")
    page_submit(page=review.salary, author=pat, publish=True, review=None, title="Salary bands", body="New grid")
    salary_request = selectors.pending_request(review.salary)
    assert salary_request is not None and not selectors.can_decide(review.ruth, salary_request)
    assert salary_request not in selectors.waiting_for(review.ruth)
    # No member of the group may edit it: superusers decide, and one who writes it approves their own.
    root = make_user("root", superuser=True)
    assert selectors.can_decide(root, salary_request)
    done = page_submit(page=review.salary, author=root, publish=True, review=None, title="Salary bands", body="Grid")
    assert done.request is None and Page.objects.get(pk=review.salary.pk).published_revision.approved_by == root


def test_a_newer_draft_supersedes_the_request_and_a_stale_approval_publishes_nothing(review):
    page = review.remote
    first = page_submit(
        page=page, author=review.editor, publish=True, review=None, title=page.title, body="One"
    ).request
    page_save(page=page, title=page.title, body="Two", author=review.editor, publish=False)
    first.refresh_from_db()
    assert first.state == State.SUPERSEDED and selectors.pending_request(page) is None
    second = page_submit(
        page=page, author=review.editor, publish=True, review=None, title=page.title, body="Three"
    ).request
    # Someone saves yet another draft in between: approving the old request publishes nothing.
    page_save(page=page, title=page.title, body="Four", author=review.editor, publish=False)
    second.state = State.PENDING
    ApprovalRequest.objects.filter(pk=second.pk).update(state=State.PENDING)
    assert (
        approval_approve(request=second, reviewer=review.ruth, revision_id=second.revision_id).state == State.SUPERSEDED
    )
    assert "three days" in Page.objects.get(pk=page.pk).body


def test_restoring_and_publishing_a_revision_go_to_review(client, review):
    client.force_login(review.editor)
    _edit(client, review.remote, "# Remote work\n\nFour days.\n", action="draft")
    response = client.post("/spaces/hr/remote-work/publish/", {"number": "2"})
    assert response.status_code == 302 and response["Location"].endswith("/approval/")
    assert selectors.pending_request(review.remote).revision.number == 2
    client.post("/spaces/hr/remote-work/history/1/restore/")
    page = Page.objects.get(pk=review.remote.pk)
    assert page.published_revision.number == 1 and selectors.pending_request(page).revision.number == 3


def test_space_review_settings_are_for_space_admins(client, review):
    client.force_login(review.editor)
    assert client.get("/spaces/hr/_approval/").status_code == 403
    client.force_login(review.admin)
    assert "Review before publishing" in client.get("/spaces/hr/_access/").content.decode()
    assert client.post("/spaces/hr/_approval/", {"requires_review": "on"}).status_code == 200  # needs a group
    client.post("/spaces/hr/_approval/", {})
    review.hr.refresh_from_db()
    assert not review.hr.requires_review
    client.force_login(review.editor)
    _edit(client, review.remote, "# Remote work\n\nPublished at once.\n")
    assert "Published at once" in Page.objects.get(pk=review.remote.pk).body


def test_the_digest_tells_reviewers_what_waits_for_them(review):
    from handbook.review_digest import review_digests_send

    for user in (review.ruth, review.rita, review.editor):
        user.email = f"{user.username}@example.com"
        user.save()
    page_submit(page=review.remote, author=review.ruth, publish=True, review=None, title="Remote work", body="New")
    assert review_digests_send() == 1  # rita: ruth does not review her own text, the author is no reviewer
    (message,) = mail.outbox
    assert message.to == ["rita@example.com"] and "waiting for your review" in message.subject
    assert "/spaces/hr/remote-work/approval/" in message.body and "from ruth" in message.body


def test_review_in_french(client, review):
    client.force_login(review.editor)
    _edit(client, review.remote, "# Remote work\n\nQuatre jours.\n")
    client.cookies["django_language"] = "fr"
    editor = client.get("/spaces/hr/remote-work/edit/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "En attente de relecture" in editor and "Envoyer en relecture" in editor
    client.force_login(review.ruth)
    client.cookies["django_language"] = "fr"
    assert "En attente de votre relecture" in client.get("/insights/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Approuver et publier" in client.get("/spaces/hr/remote-work/approval/").content.decode()
