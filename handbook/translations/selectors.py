"""Reads for linked translations. A twin is shown only to someone who may read it: every read
here starts from ``Page.objects.visible_to``, so a hidden twin is indistinguishable from none."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from core.users import is_active_user
from handbook.models import Page
from handbook.permissions import can_edit
from handbook.review.selectors import answered_for


def readable_twin(page: Page, user: Any) -> Page | None:
    """``page``'s translation if ``user`` may read it, else None (whether or not there is one)."""
    if page.translation_id is None:
        return None
    return Page.objects.visible_to(user).select_related("space").filter(pk=page.translation_id).first()


@dataclass
class TwinBlock:
    """What the page header shows about translations to one reader."""

    twin: Page | None  # readable twin, for the "Version française" / "English version" link
    outdated: bool  # the flag, for editors who may read the twin that changed
    can_edit: bool


def twin_block(page: Page, user: Any) -> TwinBlock:
    twin = readable_twin(page, user)
    editor = can_edit(user, page)
    # The flag says the twin changed: shown only to whoever may read that twin.
    outdated = bool(editor and twin is not None and page.translation_outdated_since)
    return TwinBlock(twin=twin, outdated=outdated, can_edit=editor)


def link_candidates(page: Page, user: Any, title: str = "") -> QuerySet[Page]:
    """Pages ``user`` may edit, in another language than ``page``'s: what it may be linked to."""
    pages = (
        Page.objects.editable_by(user)
        .filter(is_template=False)
        .exclude(pk=page.pk)
        .exclude(language=page.language)
        .select_related("space")
    )
    if title.strip():
        pages = pages.filter(title__icontains=title.strip())
    return pages.order_by("space__title", "title", "pk")


def outdated_translations(user: Any, *, limit: int = 50) -> list[Page]:
    """Insights: flagged pages the user answers for, whose twin (the page that changed) they may read."""
    if not is_active_user(user):
        return []
    readable = Page.objects.visible_to(user)
    pages = readable.filter(translation_outdated_since__isnull=False, translation__in=readable.values("pk"))
    pages = answered_for(pages, user).select_related("space", "translation", "translation__space")
    return list(pages.order_by("translation_outdated_since", "title", "pk")[:limit])
