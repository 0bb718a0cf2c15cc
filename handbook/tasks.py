"""Celery tasks of the handbook app: thin wrappers that call services."""

from __future__ import annotations

from celery import shared_task

from handbook.review_digest import review_digests_send


@shared_task(acks_late=True, ignore_result=True)
def send_review_digests() -> int:
    """E-mail each page owner the pages they own that are past their review-by date (daily)."""
    return review_digests_send()
