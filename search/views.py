"""Search and Ask in the browser.

Full pages without JavaScript; with htmx, only the fragment that changes
(django-template-partials ``template.html#name``). Every read goes through the
permission-filtered selectors in search/, never a query of its own.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.translation import get_language, override
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from handbook.models import LANGUAGES
from handbook.ratelimit import allow
from search.translation import request_translations

MAX_PAGE_NUMBER = 1000

# Words that open a question, in the two UI languages. A query that ends with
# "?" or starts with one of these (and has a few words) gets an Ask panel.
_QUESTION_OPENERS = {
    "what", "how", "when", "where", "who", "whom", "why", "which", "can", "could", "do", "does", "did", "is",
    "are", "should", "may", "must", "will", "would", "am", "comment", "pourquoi", "quand", "où", "qui", "quel",
    "quelle", "quels", "quelles", "combien", "est-ce", "puis-je", "peut-on", "dois-je", "faut-il", "quoi",
    "qu'est-ce", "qu’est-ce", "lequel", "laquelle", "peut-il", "peut-elle", "ai-je", "suis-je",
}  # fmt: skip
_MARKER = re.compile(r"\[(\d{1,2})\]")
_SLUG = re.compile(r"[-a-zA-Z0-9_]{1,100}")


def looks_like_question(query: str) -> bool:
    text = query.strip()
    if not text:
        return False
    if text.endswith("?"):
        return True
    words = text.lower().split()
    return len(words) >= 3 and words[0].strip(",.:;!") in _QUESTION_OPENERS


def _page_number(value: str | None) -> int:
    return min(int(value), MAX_PAGE_NUMBER) if value and value.isdigit() and int(value) > 0 else 1


def _search_url(**params: Any) -> str:
    return "/search/?" + urlencode({k: v for k, v in params.items() if v not in (None, "", 1)})


# --- Search -----------------------------------------------------------------------


@login_required
@require_GET
@vary_on_headers("HX-Request")  # the same URL answers with a page or a fragment
def search_view(request: HttpRequest) -> HttpResponse:
    from search.selectors import search_pages

    query = request.GET.get("q", "")
    # Filters are identifiers: anything else (NUL bytes, junk) is dropped, not sent to SQL.
    space = request.GET.get("space", "").strip()
    space = space if _SLUG.fullmatch(space) else ""
    language = request.GET.get("lang", "").strip()
    language = language if language in dict(LANGUAGES) else ""
    page_number = _page_number(request.GET.get("page"))
    context: dict[str, Any] = {"q": query, "space": space, "lang": language, "result": None}
    status = 200
    typing = _is_typing(request)

    if query.strip():
        if not allow(f"search:{request.user.pk}", settings.SEARCH_RATE_LIMIT):
            context["error"] = _("You are searching very quickly; please wait a moment and try again.")
            status = 429
        else:
            result = search_pages(
                user=request.user, query=query, space=space or None, language=language or None, page=page_number
            )
            context.update(_result_context(result, query, space, language, typing=typing))
            context.update(_suggestion_context(request, result, query, space, language))
            if not result.total and not result.error and not (request.htmx and request.htmx.trigger == "q"):
                from search.insights import search_miss_record

                search_miss_record(query=query, language=result.query_language)  # no user: people's words
            if not typing and not result.error:
                # The model's translation of a submitted query, for its next search (never awaited).
                request_translations(query=query, user_id=request.user.pk)

    is_fragment = bool(request.htmx) and not request.htmx.history_restore_request
    # While typing (htmx), delay the Ask request a little: if the next
    # keystroke replaces the fragment first, htmx never sends it.
    context["ask_trigger"] = "load delay:800ms" if is_fragment else "load"
    context["is_fragment"] = is_fragment
    template = "search/search.html#results" if is_fragment else "search/search.html"
    return render(request, template, context, status=status)


# "Did you mean" is offered when a search finds fewer pages than this.
SUGGEST_BELOW = 3


def _suggestion_context(request: HttpRequest, result: Any, query: str, space: str, language: str) -> dict[str, Any]:
    """A corrected query when little matches, built from words of pages this user may read."""
    if result.error or result.total >= SUGGEST_BELOW:
        return {}
    from search.scopes import reader_of
    from search.suggest import did_you_mean

    suggestion = did_you_mean(query, reader_of(request.user))
    if not suggestion:
        return {}
    return {"suggestion": suggestion, "suggestion_url": _search_url(q=suggestion, space=space, lang=language)}


def _is_typing(request: HttpRequest) -> bool:
    """A search-as-you-type fragment: sent by the search box itself (id "q") on a pause in typing.

    It answers from what is at hand and never starts an LLM call (query translation, Ask's
    written answer): a pause in typing is not a question asked. Submitting the form (Enter),
    links, pagination and full pages are searches someone asked for.
    """
    return bool(request.htmx) and request.htmx.trigger == "q"


def _result_context(result: Any, query: str, space: str, language: str, *, typing: bool = False) -> dict[str, Any]:
    language_names = dict(LANGUAGES)
    facets = result.facets or {}
    space_facets = [
        {
            "value": slug,
            "label": title,
            "count": n,
            "active": slug == space,
            "url": _search_url(q=query, space="" if slug == space else slug, lang=language),
        }
        for slug, title, n in facets.get("space", [])
    ]
    language_facets = [
        {
            "value": code,
            "label": language_names.get(code, name),
            "count": n,
            "active": code == language,
            "url": _search_url(q=query, space=space, lang="" if code == language else code),
        }
        for code, name, n in facets.get("language", [])
    ]
    space_title = next((f["label"] for f in space_facets if f["value"] == space), space)
    return {
        "result": result,
        "error": result.error,
        "space_facets": space_facets,
        "language_facets": language_facets,
        "active_space_title": space_title,
        "active_language_name": language_names.get(language, language),
        "clear_space_url": _search_url(q=query, lang=language),
        "clear_language_url": _search_url(q=query, space=space),
        "clear_filters_url": _search_url(q=query),
        "previous_url": _search_url(q=query, space=space, lang=language, page=result.page - 1),
        "next_url": _search_url(q=query, space=space, lang=language, page=result.page + 1),
        "show_ask": not result.error and looks_like_question(query),
        # A link opens the Ask form with the question filled in (asking nothing); the
        # panel beside the results asks by POST (search.html, static/js/ask.js).
        "ask_url": "/ask/?" + urlencode({"q": query}),
        # While typing, the Ask panel quotes the handbook; the model writes once the search is submitted.
        "ask_typing": typing,
    }


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


def _answer_context(question: str, answer: Any = None, error: str = "") -> dict[str, Any]:
    return {
        "q": question,
        "answer": answer,
        "segments": _segments(answer) if answer is not None else [],
        "ask_error": error,
        "search_url": _search_url(q=question),
    }


def _ask(request: HttpRequest, question: str) -> dict[str, Any]:
    from search.answers import AskError, answer_question

    use_llm = request.POST.get("typing") != "1"  # asked by a search-as-you-type fragment: quotes only
    try:
        return _answer_context(question, answer_question(user=request.user, question=question, use_llm=use_llm))
    except AskError as exc:
        return _answer_context(question, error=str(exc))


@login_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def ask_view(request: HttpRequest) -> HttpResponse:
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
    from search.answers import AskError, stream_answer

    question = request.POST.get("q", "")
    use_llm = request.POST.get("typing") != "1"  # asked by a search-as-you-type fragment: quotes only
    ui_language = get_language()  # the events are written after the view returned

    def events() -> Iterator[str]:
        try:
            with override(ui_language):
                for event in stream_answer(user=request.user, question=question, use_llm=use_llm):
                    if event["type"] == "delta":
                        yield _sse("delta", {"text": event["text"]})
                    elif event["type"] == "done":
                        html = render_to_string(
                            "search/ask.html#answer", _answer_context(question, event["answer"]), request=request
                        )
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
    comment = forms.CharField(required=False, max_length=2000)


@login_required
@require_POST
def ask_feedback_view(request: HttpRequest) -> HttpResponse:
    from search.services_feedback import FeedbackError, feedback_record

    form = FeedbackForm(request.POST)
    status, thanked = 200, False
    if form.is_valid():
        try:
            # feedback_record only accepts a log the requesting user wrote.
            feedback_record(
                user=request.user,
                log_id=form.cleaned_data["log_id"],
                helpful=form.cleaned_data["helpful"],
                comment=form.cleaned_data["comment"],
            )
            thanked = True
        except FeedbackError:
            status = 404
    else:
        status = 400
    template = "search/ask.html#feedback-done" if request.htmx else "search/feedback.html"
    # htmx only swaps 2xx responses: give it a 200 with the message instead.
    return render(request, template, {"thanked": thanked}, status=200 if request.htmx else status)
