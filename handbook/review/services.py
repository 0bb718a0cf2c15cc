"""Writes of the review: the editor's owner and review-by choices, "Mark as reviewed".

What readers see is ``last_reviewed_at`` ("Last reviewed on …"): it changes only when an editor
publishes with "Mark as reviewed", never with a draft. Owner and review-by date are editorial
settings no reader sees, saved with drafts too. None of it touches ``updated_at``: readers see that
as the last edit, and a review is not one.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone

from handbook.models import Page
from handbook.review.selectors import next_review_date
from handbook.services import SaveResult, page_save


@dataclass(frozen=True)
class ReviewChoice:
    """What the editor chose in the review part of the edit form."""

    owner_user: Any = None
    owner_group: Group | None = None
    review_by: datetime.date | None = None
    reviewed: bool = False  # "Mark as reviewed" was ticked


@transaction.atomic
def page_save_reviewed(*, page: Page, review: ReviewChoice, publish: bool, **save: Any) -> tuple[SaveResult, bool]:
    """``page_save`` and the review choices together; also whether the page was marked reviewed."""
    result = page_save(page=page, publish=publish, **save)
    return result, page_review_set(page=result.page, review=review, publishing=publish)


@transaction.atomic
def page_review_set(*, page: Page, review: ReviewChoice, publishing: bool, today: datetime.date | None = None) -> bool:
    """Store the owner and review-by date; on publish, mark the page reviewed if asked.

    Publishing with no review-by date sets one a review period (the space's) ahead. Marking
    reviewed records now as the last review and moves the review-by date one period past today,
    unless the editor typed another date. Returns whether the page was marked reviewed.
    """
    if review.owner_user is not None and review.owner_group is not None:
        raise ValueError("a page has one owner at most: a person or a group")
    page = Page.objects.select_for_update().select_related("space").get(pk=page.pk)
    review_by = review.review_by
    marked = review.reviewed and publishing
    fields: dict[str, Any] = {"owner_user": review.owner_user, "owner_group": review.owner_group}
    if marked:
        fields["last_reviewed_at"] = timezone.now()
        if review_by is None or review_by == page.review_by:
            review_by = next_review_date(page.space, today=today)
    elif publishing and review_by is None:
        review_by = next_review_date(page.space, today=today)
    fields["review_by"] = review_by
    Page.objects.filter(pk=page.pk).update(**fields)
    return marked
