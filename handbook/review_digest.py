"""The review digest: each owner's pages past their review-by date, each reviewer's changes waiting
for approval, and the sections apps above ``handbook`` register (``review/digest_sections.py``).

Above both ``review`` and ``approvals``: it reads from each, and neither imports it.
"""

from __future__ import annotations

import datetime
import logging
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from handbook.approvals.selectors import waiting_by_reviewer
from handbook.review import digest_sections
from handbook.review.selectors import overdue_pages_by_owner

logger = logging.getLogger(__name__)


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
