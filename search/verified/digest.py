"""The review digest's section on verified answers: each owner of a page whose verified answer
the page changed since gets it, with a link to verify it again (``handbook/review/digest_sections.py``)."""

from __future__ import annotations

import datetime
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.db.models import F, Q
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from config.numbers import DIGEST_MAX_LINES as MAX_LINES
from handbook.models import Page
from handbook.review import digest_sections
from handbook.review.digest_sections import DigestSection, Entries
from search.models import VerifiedAnswer


def changed_answers_by_owner(today: datetime.date | None = None) -> Entries:
    rows = (
        VerifiedAnswer.objects.filter(kind=VerifiedAnswer.Kind.ANSWER, page__in=Page.objects.published())
        .exclude(revision_id=F("page__published_revision_id"))
        .filter(Q(page__owner_user__isnull=False) | Q(page__owner_group__isnull=False))
        .values_list("pk", "question", "page_id", "page__title", "page__owner_user_id", "page__owner_group_id")
    )
    by_user: dict[int, list[tuple[int, str, int, str]]] = {}
    by_group: dict[int, list[tuple[int, str, int, str]]] = {}
    for pk, question, page_id, title, user_id, group_id in rows:
        item = (pk, question, page_id, title)
        if user_id is not None:
            by_user.setdefault(user_id, []).append(item)
        else:
            by_group.setdefault(group_id, []).append(item)
    members = get_user_model().groups.through.objects.filter(group_id__in=by_group)
    for user_id, group_id in members.values_list("user_id", "group_id"):
        by_user.setdefault(user_id, []).extend(by_group[group_id])
    entries: Entries = {}
    users = get_user_model().objects.filter(pk__in=by_user, is_active=True).exclude(email="")
    for user in users:
        # Read permission decided again per person: an owner who lost access is not sent the page.
        mine = by_user[user.pk]
        readable = set(Page.objects.visible_to(user).filter(pk__in={i[2] for i in mine}).values_list("pk", flat=True))
        lines = [_line(question, page_id, title) for _pk, question, page_id, title in mine if page_id in readable]
        if lines:
            entries[user] = lines[:MAX_LINES]
    return entries


def _line(question: str, page_id: int, title: str) -> tuple[str, str]:
    return f"“{question}” — {title}", reverse("ask_verify") + "?" + urlencode({"q": question, "page": page_id})


SECTION = DigestSection(
    name="verified answers",
    intro=_(
        "Verified answers on pages you own cite a text that changed since. Check each one and verify it "
        "again; after the page's review date, an answer not verified again is no longer shown."
    ),
    entries=changed_answers_by_owner,
)


def register() -> None:
    digest_sections.register(SECTION)
