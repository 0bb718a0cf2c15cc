"""Load the object a view acts on *through* the permission that guards it.

Each helper returns the object from a queryset already filtered for the user,
so a view never checks one object and then acts on another one.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404

from handbook.models import Page, Space
from handbook.permissions import can_admin_space


def readable_space(user: Any, space_slug: str) -> Space:
    return get_object_or_404(Space.objects.visible_to(user), slug=space_slug)


def readable_page(user: Any, space_slug: str, page_slug: str) -> Page:
    return get_object_or_404(
        Page.objects.visible_to(user).select_related("space", "last_editor", "published_revision"),
        space__slug=space_slug,
        slug=page_slug,
    )


def editable_space(user: Any, space_slug: str) -> Space:
    """404 for spaces the user can't read; 403 for spaces they read but can't edit."""
    space = readable_space(user, space_slug)
    if not Space.objects.editable_by(user).filter(pk=space.pk).exists():
        raise PermissionDenied
    return space


def editable_page(user: Any, space_slug: str, page_slug: str) -> Page:
    """The page if the user may edit it; 403 if they may only read it; 404 otherwise.

    404 (not 403) for pages the user cannot read, so that an edit URL does not
    reveal that a restricted page exists.
    """
    page = (
        Page.objects.editable_by(user)
        .select_related("space", "last_editor", "published_revision")
        .filter(space__slug=space_slug, slug=page_slug)
        .first()
    )
    if page is not None:
        return page
    if Page.objects.visible_to(user).filter(space__slug=space_slug, slug=page_slug).exists():
        raise PermissionDenied
    raise Http404


def administered_space(user: Any, space_slug: str) -> Space:
    space = readable_space(user, space_slug)
    if not can_admin_space(user, space):
        raise PermissionDenied
    return space
