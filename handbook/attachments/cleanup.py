"""Attachments follow the text: a file that no saved revision of its page uses is removed once
``ATTACHMENTS_UNUSED_DAYS`` have passed since its upload.

Every revision counts, not only the latest: restoring an old revision must bring its images back.
"Uses" means the revision's Markdown holds the attachment's id, which every address of it does
(``/attachments/<id>/<name>``, absolute or relative).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial

from django.conf import settings
from django.core.files.storage import Storage
from django.db import transaction
from django.db.models import CharField, Exists, OuterRef, Q, QuerySet
from django.db.models.functions import Cast
from django.utils import timezone

from handbook.attachment_models import Attachment
from handbook.models import Page, Revision

logger = logging.getLogger(__name__)


def grace_period() -> timedelta:
    return timedelta(days=settings.ATTACHMENTS_UNUSED_DAYS)


def _used_by_its_page() -> Q:
    # One statement for the whole sweep: a LIKE per attachment inside EXISTS, no loop over pages.
    ident = Cast(OuterRef("id"), output_field=CharField())
    revisions = Revision.objects.filter(page_id=OuterRef("page_id"), body__contains=ident)
    page_text = Page.objects.filter(pk=OuterRef("page_id"), body__contains=ident)
    return Q(Exists(revisions)) | Q(Exists(page_text))


def attachments_unused(*, uploaded_before: datetime) -> QuerySet[Attachment]:
    """Attachments uploaded before ``uploaded_before`` that no revision of their page uses."""
    return Attachment.objects.filter(created_at__lt=uploaded_before).exclude(_used_by_its_page())


@dataclass(frozen=True)
class AttachmentUse:
    """One attachment as the editor lists it: used by the text being edited, kept by a saved
    revision, or due for removal."""

    attachment: Attachment
    in_text: bool
    in_a_revision: bool
    removed_after: datetime | None  # None while a saved revision uses it


def attachment_uses(*, page: Page, text: str) -> list[AttachmentUse]:
    """The page's attachments with what uses each; ``text`` is the Markdown in the editor."""
    kept = set(page.attachments.filter(_used_by_its_page()).values_list("pk", flat=True))
    grace = grace_period()
    return [
        AttachmentUse(
            attachment=attachment,
            in_text=str(attachment.pk) in text,
            in_a_revision=attachment.pk in kept,
            removed_after=None if attachment.pk in kept else attachment.created_at + grace,
        )
        for attachment in page.attachments.all()
    ]


def attachments_remove_unused(*, now: datetime | None = None) -> int:
    """Delete the attachments no revision uses once their grace period is over; returns how many."""
    cutoff = (now or timezone.now()) - grace_period()
    removed = 0
    for pk in list(attachments_unused(uploaded_before=cutoff).values_list("pk", flat=True)):
        with transaction.atomic():
            # Asked again under the row's lock: a save may have started using it since the list was read.
            # Ordered by id: the model's order joins the page, and a draft's missing page cannot be locked.
            locked = attachments_unused(uploaded_before=cutoff).order_by("pk").select_for_update()
            attachment = locked.filter(pk=pk).first()
            if attachment is None:
                continue
            name, storage = attachment.file.name or "", attachment.file.storage
            attachment.delete()
            # The file goes once the row is gone for good: a rolled-back delete keeps both.
            transaction.on_commit(partial(_delete_file, storage, name))
        removed += 1
    return removed


def _delete_file(storage: Storage, name: str) -> None:
    try:
        storage.delete(name)
    except OSError:  # the row is gone; a file left behind is only disk space
        logger.warning("unused attachment %s: row removed, file not deleted", name, exc_info=True)
