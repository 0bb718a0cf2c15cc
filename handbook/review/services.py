"""Writes of the review: the editor's owner and review-by choices, "Mark as reviewed", the digest.

What readers see is ``last_reviewed_at`` ("Last reviewed on …"): it changes only when an editor
publishes with "Mark as reviewed", never with a draft. Owner and review-by date are editorial
settings no reader sees, saved with drafts too. None of it touches ``updated_at``: readers see that
as the last edit, and a review is not one.
"""

from __future__ import annotations

import datetime
import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from handbook.approvals.selectors import waiting_by_reviewer
from handbook.models import Page
from handbook.review import digest_sections
from handbook.review.selectors import next_review_date, overdue_pages_by_owner
from handbook.services import SaveResult, page_save

logger = logging.getLogger(__name__)


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


def review_digests_send(*, today: datetime.date | None = None) -> int:
    """E-mail each owner the pages they own that are past their review-by date, and each reviewer the
    changes waiting for their approval; how many were sent."""
    base = settings.SITE_URL.rstrip("/")
    sent = 0
    owners, reviewers = overdue_pages_by_owner(today=today), waiting_by_reviewer()
    sections = [(section, section.entries(today)) for section in digest_sections.registered()]
    others = {user for _section, entries in sections for user in entries}
    for user in sorted(set(owners) | set(reviewers) | others, key=lambda u: u.pk):
        pages, waiting = owners.get(user, []), reviewers.get(user, [])
        extra = [(section.intro, entries[user]) for section, entries in sections if entries.get(user)]
        with translation.override(settings.LANGUAGE_CODE):
            if pages:
                subject = ngettext(
                    "%(count)d handbook page to review", "%(count)d handbook pages to review", len(pages)
                ) % {"count": len(pages)}
            elif waiting:
                subject = ngettext(
                    "%(count)d handbook change waiting for your review",
                    "%(count)d handbook changes waiting for your review",
                    len(waiting),
                ) % {"count": len(waiting)}
            else:
                subject = str(_("Handbook answers to check"))
            body = render_to_string(
                "handbook/email/review_digest.txt",
                {
                    "user": user,
                    "links": [(page, base + page.get_absolute_url()) for page in pages],
                    "approvals": [(request, base + _approval_url(request)) for request in waiting],
                    "sections": [(str(intro), [(line, base + path) for line, path in lines]) for intro, lines in extra],
                },
            )
        try:
            send_mail(subject, body, None, [user.email])
        except OSError:  # one unreachable mailbox must not stop the others
            logger.warning("review digest not sent to user %s", user.pk, exc_info=True)
            continue
        sent += 1
    return sent


def _approval_url(request: Any) -> str:
    return reverse("approval_detail", kwargs={"space_slug": request.page.space.slug, "page_slug": request.page.slug})
