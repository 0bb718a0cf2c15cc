"""``{% attachment_uses_for page text as uses %}``: the editor's list of files, each with what uses it."""

from __future__ import annotations

from django import template
from django.conf import settings

from handbook.attachments.cleanup import AttachmentUse, attachment_uses
from handbook.models import Page

register = template.Library()


@register.simple_tag
def attachment_uses_for(page: Page, text: str | None) -> list[AttachmentUse]:
    return attachment_uses(page=page, text=text or "")


@register.simple_tag
def attachments_unused_days() -> int:
    return int(settings.ATTACHMENTS_UNUSED_DAYS)
