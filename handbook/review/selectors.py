"""What is due for review, who answers for a page, and who may own it.

A page is *overdue* when it is published, not deleted, and its ``review_by`` date is before today.
Every list starts from ``Page.objects.visible_to``: nobody is ever sent a page they cannot read.
Insights lists the pages to review from these rules (``search/insights/pages_to_review.py``).
"""

from __future__ import annotations

import calendar
import datetime
from typing import Any, TypeVar

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from handbook.models import Page, Space
from handbook.permissions import user_group_ids

_Pages = TypeVar("_Pages", bound=QuerySet[Page])  # answered_for keeps the queryset's own class


def add_months(day: datetime.date, months: int) -> datetime.date:
    """``day`` moved ``months`` later; the 31st becomes the last day of a shorter month."""
    index = day.month - 1 + months
    year, month = day.year + index // 12, index % 12 + 1
    return day.replace(year=year, month=month, day=min(day.day, calendar.monthrange(year, month)[1]))


def next_review_date(space: Space, *, today: datetime.date | None = None) -> datetime.date:
    """One review period (the space's ``review_months``) after today."""
    return add_months(today or timezone.localdate(), space.review_months)


def overdue(pages: QuerySet[Page], today: datetime.date | None) -> QuerySet[Page]:
    """``pages`` narrowed to those whose review-by date is past."""
    return pages.filter(review_by__lt=today or timezone.localdate())


def answered_for(pages: _Pages, user: Any) -> _Pages:
    """``pages`` narrowed to those the user answers for: a page they own, or whose owner group they
    belong to; for a page without an owner, every editor of its space does. Superusers answer for
    every page. Read permission is not decided here: start from ``Page.objects.visible_to(user)``."""
    if user.is_superuser:
        return pages
    groups = user_group_ids(user)
    unowned_in_my_spaces = Q(
        owner_user__isnull=True, owner_group__isnull=True, space__in=Space.objects.editable_by(user).values("pk")
    )
    return pages.filter(Q(owner_user=user) | Q(owner_group_id__in=groups) | unowned_in_my_spaces)


def overdue_pages_by_owner(*, today: datetime.date | None = None) -> dict[Any, list[Page]]:
    """Each active owner with an e-mail address, and the overdue pages they own and may read.

    An owner group's pages go to each of its active members; pages without an owner go to nobody
    (their space's editors find them on Insights).
    """
    owned = overdue(Page.objects.published(), today).filter(Q(owner_user__isnull=False) | Q(owner_group__isnull=False))
    candidates: dict[int, set[int]] = {}  # user id -> page ids
    group_pages: dict[int, set[int]] = {}
    for page_id, user_id, group_id in owned.values_list("pk", "owner_user_id", "owner_group_id"):
        if user_id is not None:
            candidates.setdefault(user_id, set()).add(page_id)
        else:
            group_pages.setdefault(group_id, set()).add(page_id)
    members = get_user_model().groups.through.objects.filter(group_id__in=group_pages)
    for user_id, group_id in members.values_list("user_id", "group_id"):
        candidates.setdefault(user_id, set()).update(group_pages[group_id])
    users = get_user_model().objects.filter(pk__in=candidates, is_active=True).exclude(email="").order_by("pk")
    digest: dict[Any, list[Page]] = {}
    for user in users:
        # Read permission decided again per person: an owner who lost access is not sent the page.
        pages = list(
            Page.objects.visible_to(user)
            .filter(pk__in=candidates[user.pk])
            .select_related("space")
            .order_by("review_by", "title", "pk")
        )
        if pages:
            digest[user] = pages
    return digest


def owner_candidates(page: Page) -> tuple[QuerySet[Any], QuerySet[Group]]:
    """People and groups who may own ``page``: those who may edit it.

    Groups: the space's editor groups (among the page's groups when it is restricted). People:
    active members of those groups who may edit the page, and active superusers.
    """
    groups = page.space.editor_groups.all()
    restricted = list(page.restricted_to_groups.values_list("pk", flat=True))
    through = get_user_model().groups.through
    edits = Exists(through.objects.filter(user_id=OuterRef("pk"), group__in=page.space.editor_groups.all()))
    may_edit = Q(edits)
    if restricted:
        groups = groups.filter(pk__in=restricted)
        may_edit &= Q(Exists(through.objects.filter(user_id=OuterRef("pk"), group_id__in=restricted)))
    users = get_user_model().objects.filter(Q(is_active=True) & (Q(is_superuser=True) | may_edit))
    return users.order_by("username"), groups.order_by("name")
