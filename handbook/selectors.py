"""Reads for the browser: what a user may see on the home and space pages.

Every query starts from ``visible_to`` / ``editable_by`` (handbook/permissions.py),
so nothing here decides permissions on its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from handbook.models import Page, Space

RECENT_PAGES = 10


@dataclass
class TreeNode:
    page: Page
    children: list[TreeNode] = field(default_factory=list)


def spaces_for_home(*, user: Any) -> QuerySet[Space]:
    return Space.objects.visible_to(user).order_by("title")


def pages_recently_updated(*, user: Any, limit: int = RECENT_PAGES) -> list[Page]:
    return list(Page.objects.visible_to(user).select_related("space", "last_editor").order_by("-updated_at")[:limit])


def page_tree(*, space: Space, user: Any, with_templates: bool = False) -> list[TreeNode]:
    """Visible pages of ``space`` nested by ``Page.parent``.

    A page whose parent the user may not read (restricted, draft, deleted or in
    another space) is shown at the top level: the tree never reveals a page
    the user cannot open, not even as an empty branch. Templates are starting
    texts for editors, not pages to read: only ``with_templates`` lists them.
    """
    rows = Page.objects.visible_to(user).filter(space=space)
    if not with_templates:
        rows = rows.filter(is_template=False)
    pages = list(rows.only("id", "title", "slug", "language", "parent_id", "space", "is_template"))
    nodes = {p.pk: TreeNode(p) for p in pages}
    roots: list[TreeNode] = []
    for page in pages:
        parent = nodes.get(page.parent_id) if page.parent_id else None
        if parent is None or _creates_cycle(page.pk, page.parent_id, nodes):
            roots.append(nodes[page.pk])
        else:
            parent.children.append(nodes[page.pk])
    return roots


def _creates_cycle(page_id: int, parent_id: int | None, nodes: dict[int, TreeNode]) -> bool:
    # Parents are only set through page_set_parent (which refuses cycles), but a
    # tree built from bad data must still terminate: walk up, bounded by size.
    seen = {page_id}
    for _ in range(len(nodes) + 1):
        if parent_id is None or parent_id not in nodes:
            return False
        if parent_id in seen:
            return True
        seen.add(parent_id)
        parent_id = nodes[parent_id].page.parent_id
    return True


def drafts_in_space(*, space: Space, user: Any) -> QuerySet[Page]:
    """Pages an editor may still be working on: never published, or unpublished changes."""
    return Page.objects.editable_by(user).filter(space=space, status=Page.Status.DRAFT).order_by("title")
