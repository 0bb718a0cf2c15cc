"""The impact preview of a draft: a panel the edit and review pages load, or a page of its own."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from config.numbers import MAX_PREVIEWED, REVISION_MAX_DIGITS
from core.http import HtmxHttpRequest
from search.ask.answers import check_rate_limit
from search.ask.replies import AskError
from search.impact.preview import impact_preview
from search.impact.selectors import draft_revision, editable_page


def revision_number(raw: str | None) -> int | None:
    """``?revision=`` as a number; anything else is a revision that does not exist (404)."""
    if raw in (None, ""):
        return None
    if not raw.isdigit() or len(raw) > REVISION_MAX_DIGITS:
        raise Http404
    return int(raw)


@login_required
@require_GET
@vary_on_headers("HX-Request")
def page_impact(request: HtmxHttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    """404 for a page the visitor may not edit, whether or not they may read it: its drafts are not theirs."""
    page = editable_page(request.user, space_slug, page_slug)
    number = revision_number(request.GET.get("revision"))
    revision = draft_revision(page, number)
    if number is not None and revision is None:
        raise Http404
    template = "search/impact/preview.html#panel" if request.htmx else "search/impact/preview.html"
    context: dict[str, Any] = {"page": page, "space": page.space, "revision": revision, "limit": MAX_PREVIEWED}
    if revision is not None:
        try:  # a preview asks every question twice: it counts as one of the person's questions
            check_rate_limit(request.user)
        except AskError:  # htmx swaps no error response: the panel says it instead
            return render(request, template, {**context, "limited": True}, status=200 if request.htmx else 429)
        context["preview"] = impact_preview(user=request.user, page=page, revision=revision)
    return render(request, template, context)
