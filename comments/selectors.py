"""Reading comments: every read starts from the pages the reader may read (``visible_to``).

A comment on a page someone cannot read is, for them, as absent as the page: no list, count or
endpoint shows it, so nothing they see changes when such a comment is written or resolved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet

from comments.models import Comment
from core.users import is_active_user
from handbook.markdown import table_of_contents
from handbook.models import Page, Space
from handbook.permissions import can_edit, user_group_ids

MAX_RESOLVED = 50  # a page's resolved comments shown, newest first
MAX_INSIGHTS = 100  # open comments listed on Insights


def comments_visible_to(user: Any) -> QuerySet[Comment]:
    """Comments on pages ``user`` may read: the one way comments are read."""
    return Comment.objects.filter(page__in=Page.objects.visible_to(user).values("pk"))


def display_name(user: Any) -> str:
    return (user.get_full_name() or user.get_username()) if user is not None else ""


def page_sections(page: Page) -> list[dict[str, Any]]:
    """The page's headings (id and text), the sections a comment may be about."""
    return table_of_contents(page.body)


def _annotate(comments: list[Comment], sections: dict[str, str]) -> list[Comment]:
    for comment in comments:
        comment.author_name = display_name(comment.author)
        comment.resolver_name = display_name(comment.resolved_by)
        # A section renamed or removed since: the comment stays on the page, unlinked.
        comment.section = sections.get(comment.anchor, "")
    return comments


@dataclass
class Thread:
    open: list[Comment]
    resolved: list[Comment]
    resolved_total: int
    sections: list[dict[str, Any]] = field(default_factory=list)
    can_resolve: bool = False  # editors of the page resolve and reopen


def page_thread(*, page: Page, user: Any) -> Thread:
    """The comments of ``page`` as ``user`` sees them (nothing unless they may read it)."""
    sections = page_sections(page)
    titles = {str(s["id"]): str(s["text"]) for s in sections}
    comments = comments_visible_to(user).filter(page=page).select_related("author", "resolved_by")
    open_comments = list(comments.filter(resolved_at__isnull=True))
    resolved = comments.filter(resolved_at__isnull=False).order_by("-resolved_at", "-pk")
    return Thread(
        open=_annotate(open_comments, titles),
        resolved=_annotate(list(resolved[:MAX_RESOLVED]), titles),
        resolved_total=resolved.count(),
        sections=sections,
        can_resolve=can_edit(user, page),
    )


def pages_answered_for(user: Any) -> QuerySet[Page]:
    """Pages ``user`` may read and answers for: pages they (or a group of theirs) own, and every
    page of the spaces they edit. Superusers: every readable page."""
    pages = Page.objects.visible_to(user)
    if not getattr(user, "is_authenticated", False) or user.is_superuser:
        return pages
    edited = Space.objects.editable_by(user).values("pk")
    return pages.filter(Q(owner_user=user) | Q(owner_group_id__in=user_group_ids(user)) | Q(space__in=edited))


def open_comments_for_insights(user: Any, *, limit: int = MAX_INSIGHTS) -> list[Comment]:
    """Open comments on the pages ``user`` answers for, newest first, each marked with whether they
    may resolve it (an editor of the page)."""
    if not is_active_user(user):
        return []
    rows = (
        Comment.objects.filter(page__in=pages_answered_for(user).values("pk"), resolved_at__isnull=True)
        .select_related("page__space", "author")
        .order_by("-created_at", "-pk")[:limit]
    )
    comments = list(rows)
    page_ids = {c.page_id for c in comments}
    editable = set(Page.objects.editable_by(user).filter(pk__in=page_ids).values_list("pk", flat=True))
    titles: dict[int, dict[str, str]] = {}
    for comment in comments:
        if comment.page_id not in titles:
            titles[comment.page_id] = {str(s["id"]): str(s["text"]) for s in page_sections(comment.page)}
        _annotate([comment], titles[comment.page_id])
        comment.can_resolve = comment.page_id in editable
    return comments
