"""Writing comments. Callers load the page and comment through ``comments.selectors`` and check
who may do what (``comments.views``); these functions only write."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from comments.models import Comment
from handbook.models import Page


def comment_create(*, page: Page, author: Any, body: str, anchor: str = "") -> Comment:
    return Comment.objects.create(page=page, author=author, body=body, anchor=anchor)


def comment_resolve(*, comment: Comment, user: Any) -> Comment:
    """Mark resolved; resolving a resolved comment keeps who resolved it first."""
    if comment.resolved_at is None:
        comment.resolved_at = timezone.now()
        comment.resolved_by = user
        comment.save(update_fields=["resolved_at", "resolved_by"])
    return comment


def comment_reopen(*, comment: Comment) -> Comment:
    if comment.resolved_at is not None:
        comment.resolved_at = None
        comment.resolved_by = None
        comment.save(update_fields=["resolved_at", "resolved_by"])
    return comment


def comment_delete(*, comment: Comment) -> None:
    comment.delete()
