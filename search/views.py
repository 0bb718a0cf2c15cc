"""Search and Ask in the browser.

Full pages without JavaScript; with htmx, only the fragment that changes
(django-template-partials ``template.html#name``). Every read goes through the
permission-filtered selectors in search/, never a query of its own.
"""

from __future__ import annotations

import re
import uuid
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from config.numbers import CLICK_PAGE_ID_DIGITS, MAX_PAGE_NUMBER, QUESTION_MIN_WORDS
from core import languages
from core.http import HtmxHttpRequest
from core.ratelimit import allow
from handbook.models import LANGUAGES
from search import as_you_type
from search.after_search import after_search
from search.insights.logs import search_click_record
from search.retrieval.hits import Filters
from search.retrieval.prefix import prefix_matches
from search.selectors import run_search

# A query that ends with "?" or starts with a word that opens a question in a handbook
# language (core/languages.py) and has a few words gets an Ask panel.
_SLUG = re.compile(r"[-a-zA-Z0-9_]{1,100}")


def looks_like_question(query: str) -> bool:
    text = query.strip()
    if not text:
        return False
    if text.endswith("?"):
        return True
    words = text.lower().split()
    return len(words) >= QUESTION_MIN_WORDS and words[0].strip(",.:;!") in languages.QUESTION_OPENERS


def _page_number(value: str | None) -> int:
    return min(int(value), MAX_PAGE_NUMBER) if value and value.isdigit() and int(value) > 0 else 1


def _search_url(**params: Any) -> str:
    return "/search/?" + urlencode({k: v for k, v in params.items() if v not in (None, "", 1)})


# --- Search -----------------------------------------------------------------------


@login_required
@require_GET
@vary_on_headers("HX-Request")  # the same URL answers with a page or a fragment
def search_view(request: HtmxHttpRequest) -> HttpResponse:
    query = request.GET.get("q", "")
    space, language = _filters(request)
    page_number = _page_number(request.GET.get("page"))
    context: dict[str, Any] = {"q": query, "space": space, "lang": language, "result": None}
    status = 200
    typing = _is_typing(request)

    if query.strip():
        if not allow(f"search:{request.user.pk}", settings.SEARCH_RATE_LIMIT):
            context["error"] = _("You are searching very quickly; please wait a moment and try again.")
            status = 429
        else:
            outcome = run_search(request.user, query, Filters(space or None, language or None), page_number)
            replayed = bool(request.htmx and request.htmx.history_restore_request)
            after = after_search(outcome, request.user, typing=typing, replayed=replayed)
            context.update(_result_context(outcome.shown, query, space, language, typing=typing))
            context["search_log_id"] = after.log_key
            if after.suggestion:
                context["suggestion"] = after.suggestion
                context["suggestion_url"] = _search_url(q=after.suggestion, space=space, lang=language)

    is_fragment = bool(request.htmx) and not request.htmx.history_restore_request
    # While typing (htmx), delay the Ask request a little: if the next
    # keystroke replaces the fragment first, htmx never sends it.
    context["ask_trigger"] = "load delay:800ms" if is_fragment else "load"
    context["is_fragment"] = is_fragment
    template = "search/search.html#results" if is_fragment else "search/search.html"
    return render(request, template, context, status=status)


def _filters(request: HttpRequest) -> tuple[str, str]:
    """The space and language filters. They are identifiers: anything else (NUL bytes, junk) is
    dropped, not sent to SQL."""
    space = request.GET.get("space", "").strip()
    language = request.GET.get("lang", "").strip()
    return (space if _SLUG.fullmatch(space) else "", language if language in dict(LANGUAGES) else "")


@login_required
@require_GET
def search_typing_view(request: HtmxHttpRequest) -> HttpResponse:
    """The search box's own request while typing: titles and headings by prefix (search/as_you_type.py).

    Dropped with an empty 204 (htmx keeps what it shows) when a newer keystroke was seen, the
    browser went away, or the person types faster than any hand.
    """
    query = request.GET.get("q", "")
    space, language = _filters(request)
    htmx = bool(request.htmx)
    if as_you_type.request_kind(htmx=htmx, trigger=None, typing_path=True) != as_you_type.LIGHT:
        return redirect(_search_url(q=query, space=space, lang=language))  # opened as a page
    sequence = as_you_type.parse_sequence(request.GET.get("seq"))
    if (
        as_you_type.client_gone(request.META)
        or as_you_type.superseded(session_key=request.session.session_key or "", sequence=sequence)
        or not allow(f"typing:{request.user.pk}", settings.TYPING_RATE_LIMIT)
    ):
        return HttpResponse(status=204)
    matches = prefix_matches(user=request.user, text=query, space=space, language=language)
    context = {"q": query, "matches": matches, "search_url": _search_url(q=query, space=space, lang=language)}
    # Without the request's context processors (no form, no nonce, no user in it): a tenth of a
    # millisecond of a keystroke's few.
    return HttpResponse(render_to_string("search/_typing.html", context))


@login_required
@require_POST
def search_opened_view(request: HttpRequest) -> HttpResponse:
    """A result of a logged search was opened (sent by static/js/app.js as the link is followed).

    Counted only when the page was among that search's results; nothing says who opened it.
    """
    page = request.POST.get("page", "")
    try:
        key = uuid.UUID(request.POST.get("log", ""))
    except ValueError:
        return HttpResponse(status=204)
    if page.isdigit() and len(page) < CLICK_PAGE_ID_DIGITS:
        search_click_record(key=key, page_id=int(page))
    return HttpResponse(status=204)


def _is_typing(request: HtmxHttpRequest) -> bool:
    """The full list sent when typing pauses longer (search/as_you_type.py has the rule).

    It answers from what is at hand and never starts an LLM call (query translation, Ask's
    written answer) nor is logged: a pause in typing is not a question asked. Submitting the
    form (Enter), links, pagination and full pages are searches someone asked for.
    """
    trigger = request.htmx.trigger if request.htmx else None
    kind = as_you_type.request_kind(htmx=bool(request.htmx), trigger=trigger, typing_path=False)
    return kind == as_you_type.PAUSE


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
    # The shown window, split where the confident results end (result.confident counts over every
    # page of results): those after it are folded under "more loosely related", in the same order.
    split = max(0, min(len(result.results), result.confident - (result.page - 1) * result.per_page))
    return {
        "result": result,
        "close_results": result.results[:split],
        "loose_results": result.results[split:],
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
