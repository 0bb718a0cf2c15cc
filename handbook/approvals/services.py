"""Writes of the approval: publishing through the reviewers, approving, asking for changes.

The editor's publish paths (edit, new page, publish a revision, restore) come here: where the
space requires review and the publisher may not approve their own text, the text is saved as a
draft and an approval request opened for it; nothing readers see changes. Otherwise they publish as
before (a sole reviewer's own publish records them as the approver).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from handbook import services
from handbook.approvals.selectors import can_decide, needs_approval
from handbook.models import ApprovalRequest, Page, Revision, Space
from handbook.review.services import ReviewChoice, page_review_set, page_save_reviewed

State = ApprovalRequest.State


@dataclass(frozen=True)
class Submitted:
    result: services.SaveResult
    reviewed: bool  # the owners' "Mark as reviewed" was applied (published at once)
    request: ApprovalRequest | None  # sent to the reviewers instead of being published


def _record_approval(revision: Revision, reviewer: Any) -> None:
    Revision.objects.filter(pk=revision.pk).update(approved_by=reviewer, approved_at=timezone.now())


@transaction.atomic
def approval_request_open(*, page: Page, requested_by: Any, mark_reviewed: bool = False) -> ApprovalRequest | None:
    """Ask the reviewers to approve the page's latest revision; None when it is already published."""
    page = Page.objects.select_for_update().get(pk=page.pk)
    latest = page.revisions.order_by("-number").first()
    if latest is None or latest.pk == page.published_revision_id:
        return None
    pending = ApprovalRequest.objects.filter(page=page, state=State.PENDING).first()
    if pending is not None and pending.revision_id == latest.pk:
        return pending
    ApprovalRequest.objects.filter(page=page, state=State.PENDING).update(state=State.SUPERSEDED)
    return ApprovalRequest.objects.create(
        page=page, revision=latest, requested_by=requested_by, mark_reviewed=mark_reviewed
    )


@transaction.atomic
def page_submit(*, page: Page, author: Any, publish: bool, review: ReviewChoice | None, **save: Any) -> Submitted:
    """``page_save`` (with the owners' review choices when given) for the editor's Save and Publish."""
    gated = publish and needs_approval(author, page.space, page)
    publish_now = publish and not gated
    if review is None:
        result, reviewed = services.page_save(page=page, author=author, publish=publish_now, **save), False
    else:
        result, reviewed = page_save_reviewed(page=page, review=review, author=author, publish=publish_now, **save)
    if gated:
        marked = bool(review is not None and review.reviewed)
        return Submitted(
            result, reviewed, approval_request_open(page=result.page, requested_by=author, mark_reviewed=marked)
        )
    if (
        publish_now
        and result.published
        and page.space.requires_review
        and (published := result.page.published_revision) is not None
    ):
        _record_approval(published, author)  # the only reviewer approves their own
    return Submitted(result, reviewed, None)


@transaction.atomic
def page_create_submit(
    *, space: Space, author: Any, publish: bool, **create: Any
) -> tuple[Page, ApprovalRequest | None]:
    """``page_create`` for the editor's New page; publishing may become an approval request."""
    gated = publish and needs_approval(author, space)
    page = services.page_create(space=space, author=author, publish=publish and not gated, **create)
    if gated:
        return page, approval_request_open(page=page, requested_by=author)
    if page.is_published and space.requires_review and page.published_revision is not None:
        _record_approval(page.published_revision, author)
    return page, None


@transaction.atomic
def revision_submit(
    *, page: Page, revision: Revision, author: Any, restore: bool = False
) -> tuple[Revision, ApprovalRequest | None]:
    """Publish (or restore) one revision of the history, through the reviewers where required.

    Only the latest revision can wait for approval: an older one is copied into a new draft first,
    as a restore does. Returns the revision that was published or sent for review.
    """
    if not needs_approval(author, page.space, page):
        if restore:
            revision = services.page_restore(page=page, revision=revision, author=author)
        else:
            services.page_publish(page=page, revision=revision, author=author)
        if page.space.requires_review:
            _record_approval(revision, author)
        return revision, None
    latest = page.revisions.order_by("-number").first()
    if restore or (latest is not None and latest.pk != revision.pk):
        revision = services.page_restore(page=page, revision=revision, author=author, publish=False)
    return revision, approval_request_open(page=page, requested_by=author)


def _decided(request: ApprovalRequest, reviewer: Any, state: str, comment: str = "") -> ApprovalRequest:
    request.state, request.decided_by, request.decided_at, request.comment = state, reviewer, timezone.now(), comment
    request.save(update_fields=["state", "decided_by", "decided_at", "comment"])
    return request


class DecisionOutdated(Exception):
    """The request the reviewer decided is no longer pending, or no longer for the revision they
    read: nothing was decided."""


def _locked(request: ApprovalRequest, reviewer: Any, revision_id: int) -> tuple[Page, ApprovalRequest]:
    """The page and ``request``, locked and read again: still pending and still for ``revision_id``
    (the text the reviewer read), or ``DecisionOutdated``. A decision names its text because the
    author may publish again while the reviewer reads: deciding "whatever waits now" would approve
    a text nobody read."""
    page = Page.objects.select_for_update().select_related("space").get(pk=request.page_id)
    request = ApprovalRequest.objects.select_for_update().select_related("revision").get(pk=request.pk)
    request.page = page
    if not request.is_pending or request.revision_id != revision_id:
        raise DecisionOutdated
    if not can_decide(reviewer, request):
        raise PermissionDenied
    return page, request


@transaction.atomic
def approval_approve(*, request: ApprovalRequest, reviewer: Any, revision_id: int) -> ApprovalRequest:
    """Publish the request's revision, ``revision_id`` (the one the reviewer read), recording who
    approved it on the revision.

    A request whose revision is no longer the page's latest is closed as superseded instead, and
    nothing is published (returned with that state).
    """
    page, request = _locked(request, reviewer, revision_id)
    latest = page.revisions.order_by("-number").first()
    if latest is None or latest.pk != request.revision_id:
        return _decided(request, None, State.SUPERSEDED)
    revision = request.revision
    # The page's "last edited by" is the writer of the text, not its approver.
    services.page_publish(page=page, revision=revision, author=revision.author or request.requested_by)
    _record_approval(revision, reviewer)
    page.refresh_from_db()
    # The owners' review dates follow a publish as in the editor (and "Mark as reviewed" if asked).
    choice = ReviewChoice(
        owner_user=page.owner_user,
        owner_group=page.owner_group,
        review_by=page.review_by,
        reviewed=request.mark_reviewed,
    )
    page_review_set(page=page, review=choice, publishing=True)
    return _decided(request, reviewer, State.APPROVED)


@transaction.atomic
def approval_request_changes(
    *, request: ApprovalRequest, reviewer: Any, revision_id: int, comment: str
) -> ApprovalRequest:
    """Send the text (``revision_id``, the one the reviewer read) back to its author with a comment;
    nothing is published."""
    _page, request = _locked(request, reviewer, revision_id)
    return _decided(request, reviewer, State.CHANGES_REQUESTED, comment.strip())


@transaction.atomic
def space_set_approval(*, space: Space, requires_review: bool, reviewer_group: Any) -> Space:
    space.requires_review, space.reviewer_group = requires_review, reviewer_group
    space.save(update_fields=["requires_review", "reviewer_group", "updated_at"])
    return space
