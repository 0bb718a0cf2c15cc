"""The Insights page: what the handbook fails to answer, for the editors of the spaces concerned.

Thin: who may look and what they see is decided in ``search.insights.selectors``.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from handbook.approvals.selectors import waiting_for
from search.insights.pages_to_review import pages_not_viewed, pages_to_review
from search.insights.rejected_pages import rejected_pages
from search.insights.searches import top_searches
from search.insights.selectors import insights_scope, rejected_answers, top_questions, unanswered
from search.verified.selectors import verified_insights


@login_required
@require_GET
def insights_view(request: HttpRequest) -> HttpResponse:
    scope = insights_scope(request.user)
    if scope is None:  # readers: the page does not exist for them
        raise Http404
    context = {
        "scope": scope,
        "unanswered": unanswered(scope),
        "rejected": rejected_answers(scope, request.user),
        "top": top_questions(scope),
        "searches": top_searches(scope, request.user),
        "to_review": pages_to_review(request.user),
        "not_viewed": pages_not_viewed(request.user),
        "rejected_pages": rejected_pages(request.user),
        "waiting": waiting_for(request.user),
        "verified": verified_insights(request.user),
    }
    return render(request, "search/insights.html", context)
