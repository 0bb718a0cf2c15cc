"""The reviewer's page (the request, its diff against what readers see, the decision) and the
space admin's approval settings. Thin: who may do what is in ``selectors`` and ``services``."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from handbook.approvals import selectors, services
from handbook.approvals.forms import ApprovalDecisionForm, SpaceApprovalForm
from handbook.diff import side_by_side
from handbook.lookups import administered_space, editable_page
from handbook.models import ApprovalRequest, Page


@login_required
@require_http_methods(["GET", "POST"])
def approval_detail(request: HttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    """The page's latest approval request: for its reviewers to decide, for its author to follow."""
    page = editable_page(request.user, space_slug, page_slug)
    approval = selectors.latest_request(page)
    if approval is None:
        raise Http404
    may_decide = selectors.can_decide(request.user, approval)
    form = ApprovalDecisionForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        if not selectors.is_reviewer(request.user, page):
            raise PermissionDenied
        if form.is_valid():
            return _decide(request, page, form.cleaned_data)
    published = selectors.published_against(approval)
    revision = approval.revision
    context = {
        "page": page,
        "space": page.space,
        "approval": approval,
        "revision": revision,
        "published": published,
        "may_decide": may_decide,
        "own": approval.requested_by_id == request.user.pk,
        "form": form,
        "title_changed": published is not None and published.title != revision.title,
        "diff": side_by_side(published.body if published else "", revision.body),
        "old_label": _("Published (revision %(number)s)") % {"number": published.number}
        if published
        else _("Not published"),
        "new_label": _("Under review (revision %(number)s)") % {"number": revision.number},
    }
    return render(request, "handbook/approvals/approval_detail.html", context, status=400 if form.errors else 200)


def _decide(request: HttpRequest, page: Page, data: dict[str, Any]) -> HttpResponse:
    """Decide the request the form names, on the revision it names (the text the reviewer read)."""
    approval = selectors.page_request(page, data["request"])
    if approval is None:
        raise Http404
    try:
        if data["decision"] == "approve":
            approval = services.approval_approve(request=approval, reviewer=request.user, revision_id=data["revision"])
            if approval.state == ApprovalRequest.State.APPROVED:
                messages.success(request, _("Approved and published."))
                return redirect(page.get_absolute_url())
            messages.error(request, _("A newer revision was saved since this request: nothing was published."))
        else:
            services.approval_request_changes(
                request=approval, reviewer=request.user, revision_id=data["revision"], comment=data["comment"]
            )
            messages.success(request, _("Changes requested: the author sees your comment."))
    except services.DecisionOutdated:
        messages.error(request, _("The text changed since you opened it — review it again."))
    return redirect("approval_detail", space_slug=page.space.slug, page_slug=page.slug)


@login_required
@require_http_methods(["GET", "POST"])
def space_approval(request: HttpRequest, space_slug: str) -> HttpResponse:
    # The same people as the Access page: letting every editor switch review off would let any
    # author skip it.
    space = administered_space(request.user, space_slug)
    initial = {"requires_review": space.requires_review, "reviewer_group": space.reviewer_group_id}
    # Bound on any POST: unticking the box with no group posts nothing else.
    form = SpaceApprovalForm(request.POST if request.method == "POST" else None, initial=initial)
    if request.method == "POST" and form.is_valid():
        services.space_set_approval(
            space=space,
            requires_review=form.cleaned_data["requires_review"],
            reviewer_group=form.cleaned_data["reviewer_group"],
        )
        messages.success(request, _("Review settings of the space were updated."))
        return redirect("space_access", space_slug=space.slug)
    return render(request, "handbook/approvals/space_approval.html", {"space": space, "form": form})
