"""Ask in the browser: the form, the answer (whole or streamed as server-sent events), feedback.

Every answer comes from ``search.ask.answers``, through the permission-filtered retrieval.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import get_language, override
from django.views.decorators.http import require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from config.numbers import FEEDBACK_MAX_COMMENT_CHARS, FEEDBACK_STEP_CHARS
from core.http import HtmxHttpRequest
from handbook.models import Space
from search.ask.answers import AskError, answer_question, stream_answer
from search.ask.feedback import FeedbackError, feedback_record, feedback_spaces

_MARKER = re.compile(r"\[(\d{1,2})\]")


def _search_url(question: str) -> str:
    return reverse("search") + "?" + urlencode({"q": question})


# --- Ask --------------------------------------------------------------------------


def _segments(answer: Any) -> list[dict[str, Any]]:
    """Answer text split around its [n] markers, so the template can link each
    marker to its citation while escaping every piece of model text."""
    by_number = {c.number: c for c in answer.citations}
    segments: list[dict[str, Any]] = []
    position = 0
    for match in _MARKER.finditer(answer.text):
        citation = by_number.get(int(match.group(1)))
        if citation is None:
            continue
        segments.append({"text": answer.text[position : match.start()], "citation": None})
        segments.append({"text": match.group(0), "citation": citation})
        position = match.end()
    segments.append({"text": answer.text[position:], "citation": None})
    return [s for s in segments if s["text"]]


def _answer_context(question: str, answer: Any = None, error: str = "", user: Any = None) -> dict[str, Any]:
    return {
        "q": question,
        # Editors may verify an answer to what was asked (the picker checks which pages they edit).
        "can_verify": answer is not None and user is not None and Space.objects.editable_by(user).exists(),
        "verify_url": reverse("ask_verify") + "?" + urlencode({"q": question}),
        "answer": answer,
        "segments": _segments(answer) if answer is not None else [],
        "ask_error": error,
        "search_url": _search_url(question),
    }


def _ask(request: HttpRequest, question: str) -> dict[str, Any]:
    use_llm = request.POST.get("typing") != "1"  # asked by a search-as-you-type fragment: quotes only
    try:
        answer = answer_question(user=request.user, question=question, use_llm=use_llm)
        return _answer_context(question, answer, user=request.user)
    except AskError as exc:
        return _answer_context(question, error=str(exc))


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def ask_view(request: HtmxHttpRequest) -> HttpResponse:
    """GET shows the form (filled in from ?q=); only a POST asks.

    Asking is logged and counted against the asker's rate limit, so it must come
    from an explicit submit carrying the CSRF token: a link, an <img> in a page or
    another site can make a browser GET this URL, and that must cost nothing.
    """
    if request.method == "POST":
        context = _ask(request, request.POST.get("q", ""))
        template = "search/ask.html#answer" if request.htmx else "search/ask.html"
        return render(request, template, context)
    return render(request, "search/ask.html", _answer_context(request.GET.get("q", "")))


def _sse(event: str, data: dict[str, Any]) -> str:
    # JSON keeps newlines out of the data line; the client reads it with JSON.parse.
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


@login_required
@require_POST
def ask_stream_view(request: HttpRequest) -> StreamingHttpResponse:
    """Server-sent events: text deltas while the model writes, then the checked answer as HTML.

    POST with the CSRF token, like the form: it asks, so it is logged and rate limited.
    The browser reads the events from fetch() (EventSource can only GET).

    Deltas are unchecked model output: the browser inserts them as text
    (textContent), and the final fragment - citations verified, everything
    escaped by the template - replaces them.
    """
    question = request.POST.get("q", "")
    use_llm = request.POST.get("typing") != "1"  # asked by a search-as-you-type fragment: quotes only
    ui_language = get_language()  # the events are written after the view returned

    def events() -> Iterator[str]:
        try:
            with override(ui_language):
                for event in stream_answer(user=request.user, question=question, use_llm=use_llm):
                    if event["type"] == "delta":
                        yield _sse("delta", {"text": event["text"]})
                    elif event["type"] == "verified":
                        html = render_to_string("search/ask.html#verified", {"verified": event["verified"]})
                        yield _sse("verified", {"html": html})
                    elif event["type"] == "done":
                        context = _answer_context(question, event["answer"], user=request.user)
                        html = render_to_string("search/ask.html#answer", context, request=request)
                        yield _sse("done", {"html": html})
                    elif event["type"] == "error":
                        yield _sse("ask-error", {"message": event["message"]})
        except AskError as exc:
            yield _sse("ask-error", {"message": str(exc)})

    response = StreamingHttpResponse(events(), content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # let nginx pass events through as they come
    return response


class FeedbackForm(forms.Form):
    log_id = forms.IntegerField(min_value=1)
    helpful = forms.TypedChoiceField(choices=[("1", "yes"), ("0", "no")], coerce=lambda v: v == "1")
    comment = forms.CharField(required=False, max_length=FEEDBACK_MAX_COMMENT_CHARS)
    # The second step of a "No": the space that should answer (optional; checked against the
    # spaces the asker may read by feedback_record).
    space = forms.IntegerField(required=False, min_value=1)
    step = forms.CharField(required=False, max_length=FEEDBACK_STEP_CHARS)


@login_required
@require_POST
def ask_feedback_view(request: HtmxHttpRequest) -> HttpResponse:
    form = FeedbackForm(request.POST)
    status, thanked, log = 200, False, None
    if form.is_valid():
        try:
            # feedback_record only accepts a log the requesting user wrote, and a space they may read.
            log = feedback_record(
                user=request.user,
                log_id=form.cleaned_data["log_id"],
                helpful=form.cleaned_data["helpful"],
                comment=form.cleaned_data["comment"],
                space_id=form.cleaned_data["space"],
            )
            thanked = True
        except FeedbackError:
            status = 404
    else:
        status = 400
    if log is not None and not log.helpful and form.cleaned_data["step"] != "space":
        # A "No" is recorded; ask, optionally, which space should answer, so its editors see it.
        context: dict[str, Any] = {"log": log, "spaces": feedback_spaces(request.user)}
        template = "search/feedback.html#space-form" if request.htmx else "search/feedback.html"
        return render(request, template, context)
    context = {"thanked": thanked, "named_space": log.feedback_space if log is not None else None}
    template = "search/feedback.html#feedback-done" if request.htmx else "search/feedback.html"
    # htmx only swaps 2xx responses: give it a 200 with the message instead.
    return render(request, template, context, status=200 if request.htmx else status)
