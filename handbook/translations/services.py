"""Writes for linked translations: link, unlink, dismiss the "may be out of date" flag.

Rows are changed with ``update()``: linking is not an edit of either page, so neither page's
"last edited" time moves, and no publication is announced (nothing readers find changes).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from handbook.models import Page


class TranslationError(ValueError):
    """A link that may not be made; the message is shown to the editor."""


def _editable(user: Any, *pages: Page) -> bool:
    ids = {p.pk for p in pages}
    return Page.objects.editable_by(user).filter(pk__in=ids).count() == len(ids)


@transaction.atomic
def translation_link(*, page: Page, twin: Page, user: Any) -> None:
    """Link ``page`` and ``twin`` as translations of each other.

    The user must edit both (a link shows on both pages). Either page's previous link is replaced:
    a page has one translation, and whoever edits it decides which one.
    """
    if page.pk == twin.pk:
        raise TranslationError(_("A page cannot be its own translation."))
    if page.language == twin.language:
        raise TranslationError(_("A translation must be in the other language."))
    if page.is_template or twin.is_template:
        raise TranslationError(_("Templates cannot be linked as translations."))
    if not _editable(user, page, twin):
        raise TranslationError(_("You can link only pages you may edit."))
    # Lock both rows so that two editors linking at once cannot leave a one-sided link.
    list(Page.objects.select_for_update().filter(pk__in=[page.pk, twin.pk]).order_by("pk"))
    pair = [page.pk, twin.pk]
    # Old links of either page go first: the one-to-one column may not hold a page twice.
    Page.objects.filter(Q(pk__in=pair) | Q(translation_id__in=pair)).update(
        translation=None, translation_outdated_since=None
    )
    # A fresh link starts in step: the editor has just compared the two.
    Page.objects.filter(pk=page.pk).update(translation_id=twin.pk)
    Page.objects.filter(pk=twin.pk).update(translation_id=page.pk)


@transaction.atomic
def translation_unlink(*, page: Page, user: Any) -> None:
    """Remove ``page``'s link on both sides. An editor of this page may do it: it says "this page
    has no translation", which is theirs to say, even when they cannot edit (or read) the other."""
    if not _editable(user, page):
        raise TranslationError(_("You can unlink only pages you may edit."))
    Page.objects.filter(Q(pk=page.pk) | Q(translation_id=page.pk)).update(
        translation=None, translation_outdated_since=None
    )


def translation_dismiss_outdated(*, page: Page, user: Any) -> None:
    """An editor says this page is in step with its twin after all."""
    if not _editable(user, page):
        raise TranslationError(_("You can change only pages you may edit."))
    Page.objects.filter(pk=page.pk).update(translation_outdated_since=None)
