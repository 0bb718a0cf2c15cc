"""Where a page lives and what it is called: rename, move, delete.

Each view loads its page through ``editable_page`` and acts on that object. In a space that
requires review, what readers would see at once goes to its reviewers as an edit's Publish does:
a rename becomes a request, and a published page moves in only as its reviewers would publish it.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from handbook import services
from handbook.approvals import selectors as approvals
from handbook.approvals.services import approval_request_open
from handbook.forms import PageMoveForm, PageRenameForm
from handbook.lookups import editable_page
from handbook.views.editing import after_save


@login_required
@require_http_methods(["GET", "POST"])
def page_rename(request: HttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    page = editable_page(request.user, space_slug, page_slug)
    form = PageRenameForm(request.POST or None, initial={"title": page.title})
    # Readers see a published page's title at once: where the space requires review, it waits for a reviewer.
    to_review = page.is_published and approvals.needs_approval(request.user, page.space, page)
    if request.method == "POST" and form.is_valid():
        title = form.cleaned_data["title"]
        if not to_review:
            page = services.page_rename(page=page, title=title, author=request.user)
            messages.success(request, _("Page renamed; the old address redirects here."))
            return after_save(page)
        with transaction.atomic():  # the renamed text and its request, or neither
            if services.page_rename_for_review(page=page, title=title, author=request.user) is None:
                messages.info(request, _("Nothing changed."))
                return redirect(page.get_absolute_url())
            approval_request_open(page=page, requested_by=request.user)
        messages.success(
            request, _("Sent for review: readers keep the current title until a reviewer approves the new one.")
        )
        return redirect("approval_detail", space_slug=page.space.slug, page_slug=page.slug)
    context = {"page": page, "space": page.space, "form": form, "to_review": to_review}
    return render(request, "handbook/page_rename.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def page_move(request: HttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    # Source space: editable_page. Target space and parent: the form only
    # offers (and only accepts) spaces and pages this user may edit.
    page = editable_page(request.user, space_slug, page_slug)
    form = PageMoveForm(
        request.POST or None, page=page, user=request.user, initial={"space": page.space_id, "parent": page.parent_id}
    )
    if request.method == "POST" and form.is_valid():
        destination = form.cleaned_data["space"]
        try:
            page = services.page_move(
                page=page, space=destination, approves_there=not approvals.needs_approval(request.user, destination)
            )
        except services.ReviewRequired as refused:  # nothing moved: the form says why and what to do instead
            form.add_error("space", refused)
            context = {"page": page, "space": page.space, "form": form}
            return render(request, "handbook/page_move.html", context, status=400)
        services.page_set_parent(page=page, parent=form.cleaned_data["parent"])
        messages.success(request, _("Page moved; the old address redirects here."))
        return after_save(page)
    return render(request, "handbook/page_move.html", {"page": page, "space": page.space, "form": form})


@login_required
@require_http_methods(["GET", "POST"])
def page_delete(request: HttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    page = editable_page(request.user, space_slug, page_slug)
    if request.method == "POST":
        services.page_delete(page=page)
        messages.success(
            request, _("“%(title)s” was deleted. An administrator can restore it.") % {"title": page.title}
        )
        return redirect(page.space.get_absolute_url())
    return render(request, "handbook/page_delete.html", {"page": page, "space": page.space})
