"""Who may decide on an approval request, and what waits for whom.

A *reviewer* of a page is an active superuser, or an active member of its space's reviewer group
who may edit the page (``Page.objects.editable_by``): a pending revision is a draft, and drafts are
for editors only, so a reviewer group never opens a restricted page's draft to someone outside its
groups. Nobody decides on their own request, unless no other member of the reviewer group could
(the only reviewer of the page): four eyes when there are four, and no request stuck forever.
Superusers are not counted as "another reviewer": they are every space's fallback, not its reviewers.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Exists, OuterRef, Q, QuerySet

from core.users import is_active_user
from handbook.models import ApprovalRequest, Page, Revision, Space
from handbook.permissions import can_edit_space, user_group_ids

State = ApprovalRequest.State
MAX_WAITING = 200


def _active(user: Any) -> bool:
    return is_active_user(user)


def _group_reviewers(space: Space, restricted: list[int]) -> QuerySet[Any]:
    """Active members of the space's reviewer group who may edit a page of it restricted to
    ``restricted`` (none: unrestricted)."""
    users = get_user_model().objects
    if not space.reviewer_group_id:
        return users.none()
    through = users.model.groups.through
    member = Exists(through.objects.filter(user_id=OuterRef("pk"), group_id=space.reviewer_group_id))
    may_edit = Q(Exists(through.objects.filter(user_id=OuterRef("pk"), group__in=space.editor_groups.all())))
    if restricted:
        may_edit &= Q(Exists(through.objects.filter(user_id=OuterRef("pk"), group_id__in=restricted)))
    return users.filter(member, Q(is_superuser=True) | may_edit, is_active=True)


def group_reviewers(page: Page) -> QuerySet[Any]:
    """Active members of the page's reviewer group who may edit the page."""
    return _group_reviewers(page.space, list(page.restricted_to_groups.values_list("pk", flat=True)))


def _reviews_space(user: Any, space: Space) -> bool:
    return bool(user.is_superuser or (space.reviewer_group_id and space.reviewer_group_id in user_group_ids(user)))


def is_reviewer(user: Any, page: Page) -> bool:
    """May ``user`` decide on requests of ``page`` at all (their own ones aside)?"""
    if not _active(user) or not Page.objects.editable_by(user).filter(pk=page.pk).exists():
        return False
    return _reviews_space(user, page.space)


def may_self_approve(user: Any, page: Page) -> bool:
    """A reviewer of the page who is its group's only reviewer (or, without a group, a superuser)."""
    return is_reviewer(user, page) and not group_reviewers(page).exclude(pk=user.pk).exists()


def can_decide(user: Any, request: ApprovalRequest) -> bool:
    """May ``user`` approve ``request`` or ask for its changes?"""
    if not request.is_pending or not is_reviewer(user, request.page):
        return False
    return request.requested_by_id != user.pk or may_self_approve(user, request.page)


def needs_approval(user: Any, space: Space, page: Page | None = None) -> bool:
    """Does publishing by ``user`` in ``space`` (of ``page``; None: a new page) go to the reviewers?

    No when the space does not require review, and no for a reviewer who could approve their own
    request: the only reviewer publishes at once (the revision records them as its approver).
    """
    if not space.requires_review:
        return False
    if page is not None:
        return not may_self_approve(user, page)
    # A new page: unrestricted, in this space.
    if not _active(user) or not can_edit_space(user, space) or not _reviews_space(user, space):
        return True
    return _group_reviewers(space, []).exclude(pk=user.pk).exists()


def latest_request(page: Page) -> ApprovalRequest | None:
    """The page's newest request that still says something to its author (not superseded)."""
    return (
        ApprovalRequest.objects.filter(page=page)
        .exclude(state=State.SUPERSEDED)
        .select_related("revision", "requested_by", "decided_by")
        .order_by("-requested_at", "-pk")
        .first()
    )


def pending_request(page: Page) -> ApprovalRequest | None:
    return (
        ApprovalRequest.objects.filter(page=page, state=State.PENDING)
        .select_related("page__space", "revision", "requested_by")
        .first()
    )


def page_request(page: Page, pk: int) -> ApprovalRequest | None:
    """The page's request ``pk`` in any state (a decision names the one it was read on)."""
    return ApprovalRequest.objects.filter(page=page, pk=pk).select_related("page__space", "revision").first()


def waiting_for(user: Any, *, limit: int = MAX_WAITING) -> list[ApprovalRequest]:
    """Pending requests ``user`` may decide on, oldest first ("Waiting for your review").

    Narrowed in SQL to pages they may edit in spaces whose reviewer group they belong to (all
    spaces for superusers); their own requests are kept only where they are the only reviewer.
    """
    if not _active(user):
        return []
    pending = ApprovalRequest.objects.filter(state=State.PENDING, page__in=Page.objects.editable_by(user))
    if not user.is_superuser:
        pending = pending.filter(page__space__reviewer_group_id__in=user_group_ids(user))
    pending = pending.select_related("page__space", "revision", "requested_by").order_by("requested_at", "pk")
    others = list(pending.exclude(requested_by=user)[:limit])
    own = [r for r in pending.filter(requested_by=user)[:limit] if may_self_approve(user, r.page)]
    return sorted(others + own, key=lambda r: (r.requested_at, r.pk))[:limit]


def published_against(request: ApprovalRequest) -> Revision | None:
    """What readers see now, for the diff: the page's published revision (None: never published)."""
    page = request.page
    return page.published_revision if page.is_published else None


def waiting_by_reviewer() -> dict[Any, list[ApprovalRequest]]:
    """Each active member of a reviewer group who has an e-mail address, and the pending requests of
    that group's spaces they may decide on (the review digest). Superusers outside the group find
    theirs on Insights: they review every space, but no space counts on them for it."""
    pending = ApprovalRequest.objects.filter(state=State.PENDING, page__deleted_at__isnull=True)
    groups = set(pending.values_list("page__space__reviewer_group_id", flat=True)) - {None}
    users = get_user_model().objects.filter(groups__in=groups, is_active=True).exclude(email="").distinct()
    digest: dict[Any, list[ApprovalRequest]] = {}
    for user in users.order_by("pk"):
        mine = set(user_group_ids(user))
        # Permission decided again per person (``waiting_for``): a member who cannot edit the page is not sent it.
        requests = [r for r in waiting_for(user) if r.page.space.reviewer_group_id in mine]
        if requests:
            digest[user] = requests
    return digest
