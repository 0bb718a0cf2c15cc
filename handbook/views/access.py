"""Who may read and edit: space groups and page restrictions, for space admins."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from handbook import services
from handbook.forms import PageAccessForm, SpaceAccessForm
from handbook.lookups import administered_space, editable_page
from handbook.permissions import can_admin_space


@login_required
@require_http_methods(["GET", "POST"])
def space_access(request: HttpRequest, space_slug: str) -> HttpResponse:
    space = administered_space(request.user, space_slug)
    form = SpaceAccessForm(
        request.POST or None,
        initial={"viewer_groups": space.viewer_groups.all(), "editor_groups": space.editor_groups.all()},
    )
    if request.method == "POST" and form.is_valid():
        services.space_set_groups(
            space=space,
            viewer_groups=list(form.cleaned_data["viewer_groups"]),
            editor_groups=list(form.cleaned_data["editor_groups"]),
        )
        messages.success(request, _("Access to the space was updated."))
        return redirect("space_access", space_slug=space.slug)
    return render(request, "handbook/space_access.html", {"space": space, "form": form})


@login_required
@require_http_methods(["GET", "POST"])
def page_access(request: HttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    # Both: admin of the page's space AND able to edit this very page. A space
    # admin who cannot read a restricted page must not be able to re-open it
    # (for example to a group they belong to).
    page = editable_page(request.user, space_slug, page_slug)
    if not can_admin_space(request.user, page.space):
        raise PermissionDenied
    form = PageAccessForm(request.POST or None, initial={"restricted_to_groups": page.restricted_to_groups.all()})
    if request.method == "POST" and form.is_valid():
        services.page_set_restrictions(page=page, groups=list(form.cleaned_data["restricted_to_groups"]))
        messages.success(request, _("Page restrictions were updated."))
        return redirect("page_access", space_slug=page.space.slug, page_slug=page.slug)
    return render(request, "handbook/page_access.html", {"page": page, "space": page.space, "form": form})
