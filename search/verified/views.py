"""The editor's side of verified answers: pick the units that answer a question, mark a gap,
verify again, withdraw. Thin: who may do what is checked by ``services``; what is listed by ``selectors``."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from config.numbers import RAW_QUESTION_FACTOR, VERIFIED_MAX_QUESTION_CHARS
from handbook.models import Page, Space
from search.verified.selectors import (
    candidate_pages,
    picker_sections,
    reply_for,
    verified_for_editor,
    verified_for_question,
)
from search.verified.services import VerifyError, mark_not_in_handbook, verify_again, verify_answer, withdraw


class PickForm(forms.Form):
    q = forms.CharField(max_length=VERIFIED_MAX_QUESTION_CHARS * RAW_QUESTION_FACTOR)
    page = forms.IntegerField(min_value=1, required=False)
    space = forms.IntegerField(min_value=1, required=False)
    action = forms.ChoiceField(choices=[("verify", "verify"), ("gap", "gap")])


def _verify_url(question: str, page_id: int | None = None) -> str:
    params: dict[str, Any] = {"q": question}
    if page_id:
        params["page"] = page_id
    return reverse("ask_verify") + "?" + urlencode(params)


def _context(request: HttpRequest, question: str, page_id: int | None, error: str = "") -> dict[str, Any]:
    page = None
    if page_id:
        page = Page.objects.editable_by(request.user).published().filter(pk=page_id).first()
    existing = verified_for_question(request.user, question) if question else []
    return {
        "q": question,
        "page": page,
        "sections": picker_sections(page) if page is not None else [],
        "candidates": candidate_pages(request.user, question) if question and page is None else [],
        "existing": [(v, reply_for(v) if v.page_id else None) for v in existing],
        "spaces": list(Space.objects.editable_by(request.user).order_by("title")),
        "verify_error": error,
    }


@login_required
@require_http_methods(["GET", "POST"])
def verify_view(request: HttpRequest) -> HttpResponse:
    if not Space.objects.editable_by(request.user).exists():  # readers: the page does not exist for them
        raise Http404
    if request.method == "GET":
        page_id = request.GET.get("page", "")
        context = _context(request, request.GET.get("q", "").strip(), int(page_id) if page_id.isdigit() else None)
        return render(request, "search/verify.html", context)
    form = PickForm(request.POST)
    if not form.is_valid():
        return render(request, "search/verify.html", _context(request, "", None, _("Type the question.")), status=400)
    question, page_id = form.cleaned_data["q"], form.cleaned_data["page"]
    try:
        if form.cleaned_data["action"] == "gap":
            space = get_object_or_404(Space.objects.editable_by(request.user), pk=form.cleaned_data["space"] or 0)
            mark_not_in_handbook(editor=request.user, question=question, space=space)
            messages.success(request, _("Marked: the handbook does not say this. The question stays in Insights."))
        else:
            page = get_object_or_404(Page.objects.editable_by(request.user).published(), pk=page_id or 0)
            verify_answer(
                editor=request.user,
                question=question,
                page=page,
                unit_hashes=request.POST.getlist("unit"),
                anchors=request.POST.getlist("section"),
            )
            messages.success(request, _("Verified. Readers of the page who ask this get this answer first."))
    except VerifyError as exc:
        return render(request, "search/verify.html", _context(request, question, page_id, str(exc)), status=400)
    return HttpResponseRedirect(_verify_url(question))


@login_required
@require_POST
def verified_change_view(request: HttpRequest, pk: int) -> HttpResponse:
    """Verify again on the page's current text, or withdraw."""
    # One that exists but that they may not see is a 404 like a missing one: the answer says nothing
    # of a page they cannot read.
    verified = get_object_or_404(verified_for_editor(request.user).select_related("page", "space"), pk=pk)
    try:
        if request.POST.get("action") == "withdraw":
            withdraw(editor=request.user, verified=verified)
            messages.success(request, _("The verified answer is withdrawn."))
        else:
            verify_again(editor=request.user, verified=verified)
            messages.success(request, _("Verified again on the page's current text."))
    except VerifyError as exc:
        messages.error(request, str(exc))
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        back = reverse("insights")
    return HttpResponseRedirect(back)
