"""Celery tasks of the handbook app: thin wrappers that call services."""

from __future__ import annotations

from celery import shared_task

from handbook.attachments.cleanup import attachments_remove_unused
from handbook.review_digest import review_digests_send


@shared_task(acks_late=True, ignore_result=True)
def send_review_digests() -> int:
    """E-mail each page owner the pages they own that are past their review-by date (daily)."""
    return review_digests_send()


@shared_task(acks_late=True, ignore_result=True)
def remove_unused_attachments() -> int:
    """Delete attachments no revision of their page uses, once their grace period is over (beat)."""
    return attachments_remove_unused()
