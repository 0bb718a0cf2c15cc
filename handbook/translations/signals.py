"""The "translation may be out of date" flag, set and cleared as pages are published.

``handbook.services`` announces nothing per publication that says "the text changed" (a move or a
rename announces too), so the flag watches the one column that changes exactly then: a new
``published_revision``. Only linked pages pay the extra read.
"""

from __future__ import annotations

from typing import Any

from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver
from django.utils import timezone

from handbook.models import Page


@receiver(pre_save, sender=Page, dispatch_uid="translations_note_publication")
def _note_publication(sender: Any, instance: Page, raw: bool = False, **kwargs: Any) -> None:
    instance._translation_published = False
    if raw or instance.pk is None or instance.translation_id is None or instance.published_revision_id is None:
        return
    before = Page.objects.filter(pk=instance.pk).values_list("published_revision_id", flat=True).first()
    instance._translation_published = before != instance.published_revision_id


@receiver(post_save, sender=Page, dispatch_uid="translations_flag_twin")
def _flag_twin(sender: Any, instance: Page, raw: bool = False, **kwargs: Any) -> None:
    if raw or instance.translation_id is None or not getattr(instance, "_translation_published", False):
        return
    instance._translation_published = False
    flagged = Page.objects.filter(pk=instance.pk, translation_outdated_since__isnull=False)
    if flagged.update(translation_outdated_since=None):
        # This side was behind and is now published: it caught up with its twin. Flagging the
        # twin back would make every update of a translation ask for an update of the original.
        instance.translation_outdated_since = None
        return
    # The earliest unanswered change is kept: "out of date since" the first change not carried over.
    Page.objects.filter(pk=instance.translation_id, translation_outdated_since__isnull=True).update(
        translation_outdated_since=timezone.now()
    )
