"""Comment threads and editor presence. Thin: reads in ``selectors``, writes in ``services``.

Every view loads the page through the permission that guards it (``handbook.lookups``): a
page the user cannot read answers 404 exactly like a missing one, whatever the comment id.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from comments import presence, services
from comments.forms import CommentForm
from comments.models import MAX_LENGTH, Comment
from comments.selectors import comments_visible_to, page_sections, page_thread
from core.http import HtmxHttpRequest
from core.ratelimit import allow
from handbook.lookups import editable_page, readable_page
from handbook.models import Page
from handbook.permissions import can_edit


def thread_context(*, page: Page, user: Any, form: CommentForm | None = None) -> dict[str, Any]:
    """What ``comments/_thread.html`` shows (the page's template tag and these views alike)."""
    thread = page_thread(page=page, user=user)
    where = {"space_slug": page.space.slug, "page_slug": page.slug}
    return {
        "page": page,
        "thread": thread,
        "form": form or CommentForm(sections=thread.sections),
        "max_length": MAX_LENGTH,
        "thread_url": reverse("page_comments", kwargs=where),
        "user": user,
    }


def _thread(request: HtmxHttpRequest, page: Page, form: CommentForm | None = None, status: int = 200) -> HttpResponse:
    context = thread_context(page=page, user=request.user, form=form)
    # htmx swaps the thread in place; without JavaScript the thread is a page of its own.
    template = "comments/_thread.html" if request.htmx else "comments/thread_page.html"
    return render(request, template, {**context, "space": page.space}, status=status)


def _back(request: HtmxHttpRequest, page: Page) -> HttpResponse:
    if request.htmx:
        return _thread(request, page)
    if request.POST.get("next") == "insights":  # the Resolve button of Insights
        return redirect(reverse("insights") + "#open-comments")
    return redirect(page.get_absolute_url() + "#comments")


@login_required
@require_http_methods(["GET", "POST"])
def page_comments(request: HtmxHttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    page = readable_page(request.user, space_slug, page_slug)
    if request.method == "GET":
        return _thread(request, page)
    form = CommentForm(request.POST, sections=page_sections(page))
    if not allow(f"comment:{request.user.pk}", settings.COMMENT_RATE_LIMIT):
        form.is_valid()  # keeps the text in the form
        form.add_error(None, _("You are commenting very quickly; please wait a moment and try again."))
        return _thread(request, page, form, status=429)
    if not form.is_valid():
        # htmx swaps only 2xx (and 429) answers: the errors come back as a 200 there.
        return _thread(request, page, form, status=200 if request.htmx else 400)
    services.comment_create(
        page=page, author=request.user, body=form.cleaned_data["body"], anchor=form.cleaned_data["anchor"]
    )
    if not request.htmx:
        messages.success(request, _("Comment posted."))
    return _back(request, page)


def _comment(request: HttpRequest, space_slug: str, page_slug: str, comment_id: int) -> tuple[Page, Comment]:
    page = readable_page(request.user, space_slug, page_slug)
    return page, get_object_or_404(comments_visible_to(request.user).filter(page=page), pk=comment_id)


def _editable_comment(request: HttpRequest, space_slug: str, page_slug: str, comment_id: int) -> tuple[Page, Comment]:
    """``_comment``, for the page's editors only (a reader who may read it gets 403)."""
    page, comment = _comment(request, space_slug, page_slug, comment_id)
    if not can_edit(request.user, page):
        raise PermissionDenied
    return page, comment


def _editors_decide(request: HtmxHttpRequest, page: Page, done: str) -> HttpResponse:
    """After an editor's resolve or reopen: the thread again (htmx) or a page with ``done`` said."""
    if not request.htmx:
        messages.success(request, done)
    return _back(request, page)


@login_required
@require_POST
def comment_resolve(request: HtmxHttpRequest, space_slug: str, page_slug: str, comment_id: int) -> HttpResponse:
    page, comment = _editable_comment(request, space_slug, page_slug, comment_id)
    services.comment_resolve(comment=comment, user=request.user)
    return _editors_decide(request, page, _("Comment resolved."))


@login_required
@require_POST
def comment_reopen(request: HtmxHttpRequest, space_slug: str, page_slug: str, comment_id: int) -> HttpResponse:
    page, comment = _editable_comment(request, space_slug, page_slug, comment_id)
    services.comment_reopen(comment=comment)
    return _editors_decide(request, page, _("Comment reopened."))


@login_required
@require_POST
def comment_delete(request: HtmxHttpRequest, space_slug: str, page_slug: str, comment_id: int) -> HttpResponse:
    page, comment = _comment(request, space_slug, page_slug, comment_id)
    if comment.author_id is None or comment.author_id != request.user.pk:
        raise PermissionDenied  # only its author deletes a comment; editors resolve it
    services.comment_delete(comment=comment)
    if not request.htmx:
        messages.success(request, _("Comment deleted."))
    return _back(request, page)


@login_required
@require_POST
def page_presence(request: HttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    """The editor's poll: records that this person has the page open, lists the others who do."""
    page = editable_page(request.user, space_slug, page_slug)
    assert request.user.pk is not None  # editable_page let only a signed-in editor through
    presence.presence_record(page_id=page.pk, user_id=request.user.pk)
    names = presence.other_editors(page=page, user=request.user)
    return render(request, "comments/_presence_list.html", {"names": names, "others": ", ".join(names)})
