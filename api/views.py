"""The REST API, version 1: search, ask, pages and spaces, as the calling person.

Every read goes through the permission-filtered paths the web pages use; a
page the caller may not read answers exactly like one that does not exist.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal
from urllib.parse import urlencode

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.urls import reverse
from ninja import NinjaAPI, Query
from ninja.errors import HttpError, ValidationError

from api.auth import SessionOnly, TokenAuth, allow_call, calling_token
from api.schemas import AskIn, AskOut, ErrorOut, ImpactOut, PageListItem, PageOut, SearchOut, SpaceOut
from core.ratelimit import allow, parse_rate
from handbook.markdown import render_markdown
from handbook.models import Page, Space
from search.ask.answers import AskError, answer_question, check_rate_limit, stream_answer, validate_question
from search.hit_list import search_json
from search.impact.preview import ImpactPreview, impact_preview
from search.impact.selectors import draft_revision
from search.retrieval.query import QueryError
from summaries.selectors import summary_for_page

MAX_OFFSET = 1000
# Listing a space costs the same at any offset (no ranking); the bound only keeps the number one
# Postgres takes (a bigint) and far above any space's page count.
MAX_LIST_OFFSET = 1_000_000
ERRORS = {400: ErrorOut, 401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 429: ErrorOut}

api = NinjaAPI(
    title="Handbook API",
    version="1",
    description=(
        "Search, ask and read the handbook as a person. Authenticate with a personal access token "
        "(`Authorization: Bearer <token>`, created on your profile page or with `manage.py create_token`) "
        "or a browser session (CSRF token needed for POST). A token sees exactly what its owner may read."
    ),
    urls_namespace="api",
    auth=[TokenAuth(), SessionOnly()],
)


class RateLimited(HttpError):
    def __init__(self, retry_after: int) -> None:
        super().__init__(429, "Too many requests for this person or token; wait a moment and try again.")
        self.retry_after = retry_after


def _check_rate(request: HttpRequest, kind: str, rate: str) -> None:
    """Per person across all their tokens and sessions (and the MCP endpoint), and per token."""
    token = calling_token(request)
    assert request.user.pk is not None  # the API's authentication let a signed-in person through
    if not allow_call(kind, rate, user_id=request.user.pk, token_id=token.pk if token else None):
        raise RateLimited(parse_rate(rate)[1])


@api.exception_handler(HttpError)
def _http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
    response = api.create_response(request, {"detail": str(exc.message)}, status=exc.status_code)
    if exc.status_code == 401:
        response["WWW-Authenticate"] = 'Bearer realm="handbook"'
    if isinstance(exc, RateLimited):
        response["Retry-After"] = str(exc.retry_after)
    return response


@api.exception_handler(ValidationError)
def _invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
    errors = [
        {"location": ".".join(str(part) for part in error.get("loc", ())), "message": error.get("msg", "")}
        for error in exc.errors
    ]
    return api.create_response(request, {"detail": "Invalid request.", "errors": errors}, status=400)


NOT_FOUND = {"detail": "Not found."}


@api.exception_handler(Http404)
def _not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
    return api.create_response(request, NOT_FOUND, status=404)


def unknown_path(request: HttpRequest, rest: str = "") -> HttpResponse:
    """Any /api/v1/ path the API does not have, any method: the API's JSON 404, not the site's HTML page
    (a client parsing JSON would choke on it). Asks nothing of the caller: it reveals no more than the
    public OpenAPI schema does."""
    return JsonResponse(NOT_FOUND, status=404)


def _as_is(request: HttpRequest, data: dict[str, Any]) -> HttpResponse:
    """The CLI's JSON exactly as the CLI builds it (the schema documents it; it does not filter it)."""
    return api.create_response(request, data, status=200)


# --- Search ------------------------------------------------------------------------


@api.get("/search", response={200: SearchOut, **ERRORS}, summary="Search pages")
def search(
    request: HttpRequest,
    q: str,
    limit: int = Query(10, ge=1, le=100),
    offset: int = Query(0, ge=0, le=MAX_OFFSET),
    mode: Literal["hybrid", "keyword", "vector"] = "hybrid",
) -> Any:
    """The JSON of `manage.py search --json` for the caller. Paging: `offset`; the `X-Total-Count`
    header gives the number of pages found and `Link: <…>; rel="next"` the next window."""
    _check_rate(request, "calls", settings.API_RATE_LIMIT)
    # The person's search limit, the same count as the search page's (search.views).
    if not allow(f"search:{request.user.pk}", settings.SEARCH_RATE_LIMIT):
        raise RateLimited(parse_rate(settings.SEARCH_RATE_LIMIT)[1])
    try:
        out, found = search_json(q, request.user, limit=limit, offset=offset, mode=mode)
    except QueryError as exc:
        raise HttpError(400, str(exc)) from None
    response = _as_is(request, out)
    response["X-Total-Count"] = str(found)
    if offset + limit < found and offset + limit <= MAX_OFFSET:
        params = urlencode({"q": q, "limit": limit, "offset": offset + limit, "mode": mode})
        response["Link"] = f'<{request.path}?{params}>; rel="next"'
    return response


# --- Ask ---------------------------------------------------------------------------


def _may_ask(request: HttpRequest) -> None:
    token = calling_token(request)
    if token is not None and not token.can_ask:
        raise HttpError(403, "This token may only read: asking needs a token with the 'ask' scope.")
    _check_rate(request, "calls", settings.API_RATE_LIMIT)
    _check_rate(request, "ask", settings.ASK_RATE_LIMIT)


@api.post("/ask", response={200: AskOut, **ERRORS}, summary="Ask a question")
def ask(request: HttpRequest, body: AskIn) -> Any:
    """The JSON of `manage.py ask --json` for the caller: an answer citing only pages they may read."""
    _may_ask(request)
    try:
        check_rate_limit(request.user)  # the person's Ask limit, counted with the web's (the stream counts it itself)
    except AskError:
        raise RateLimited(parse_rate(settings.ASK_RATE_LIMIT)[1]) from None
    try:
        answer = answer_question(user=request.user, question=body.question, rate_limit=False)
    except AskError as exc:
        raise HttpError(400, str(exc)) from None
    return _as_is(request, answer.as_json())


@api.post("/ask/stream", response={200: None, **ERRORS}, summary="Ask a question, streamed")
def ask_stream(request: HttpRequest, body: AskIn) -> Any:
    """Server-sent events: first `verified` when an editor's verified answer matches (its JSON, as in
    `done`), then `delta` events carry unchecked text as the model writes it; the last event is
    `done` with the checked answer (the same JSON as `POST /ask`) or `error` with a `detail`."""
    _may_ask(request)
    try:
        question = validate_question(body.question)
    except AskError as exc:
        raise HttpError(400, str(exc)) from None
    user = request.user

    def events() -> Iterator[str]:
        for event in stream_answer(user=user, question=question):
            if event["type"] == "delta":
                yield _sse("delta", {"text": event["text"]})
            elif event["type"] == "verified":
                yield _sse("verified", event["verified"].as_json())
            elif event["type"] == "done":
                yield _sse("done", event["answer"].as_json())
            elif event["type"] == "error":
                yield _sse("error", {"detail": event["message"]})

    response = StreamingHttpResponse(events(), content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


# --- Pages and spaces -----------------------------------------------------------------


def page_json(page: Any, user: Any) -> dict[str, Any]:
    summary, _is_current = summary_for_page(page=page, user=user)
    return {
        "ref": page.ref,
        "title": page.title,
        "language": page.language,
        "revision": page.published_revision.number,
        "html": render_markdown(page.body),
        "summary": summary.text if summary else None,
        "url": page.get_absolute_url(),
    }


def readable_page_by_ref(user: Any, ref: str) -> Any:
    page = Page.objects.visible_to(user).select_related("published_revision").filter(ref=ref).first()
    if page is None:
        raise Http404
    return page


@api.get("/pages/{path:ref}", response={200: PageOut, **ERRORS}, summary="Read a page by its ref")
def page_by_ref(request: HttpRequest, ref: str) -> Any:
    """404 for a page that does not exist and for one the caller may not read alike."""
    _check_rate(request, "calls", settings.API_RATE_LIMIT)
    return page_json(readable_page_by_ref(request.user, ref), request.user)


@api.get("/spaces/{space}/pages/{slug}", response={200: PageOut, **ERRORS}, summary="Read a page by its slug")
def page_by_slug(request: HttpRequest, space: str, slug: str) -> Any:
    _check_rate(request, "calls", settings.API_RATE_LIMIT)
    page = (
        Page.objects.visible_to(request.user)
        .select_related("published_revision", "space")
        .filter(space__slug=space, slug=slug)
        .first()
    )
    if page is None:
        raise Http404
    return page_json(page, request.user)


@api.get("/spaces/{space}/pages", response={200: list[PageListItem], **ERRORS}, summary="List a space's pages")
def space_pages(
    request: HttpRequest,
    space: str,
    limit: int = Query(50, ge=1, le=100),
    offset: int = Query(0, ge=0, le=MAX_LIST_OFFSET),
) -> Any:
    """The pages of the space the caller may read, by title: ref, title, language, last update and
    address. 404 for a space that does not exist and one the caller may not read alike. Paging:
    `offset`; `X-Total-Count` gives the number of pages the caller may read there and
    `Link: <…>; rel="next"` the next window."""
    _check_rate(request, "calls", settings.API_RATE_LIMIT)
    if not Space.objects.visible_to(request.user).filter(slug=space).exists():
        raise Http404
    # The permission filter is the SQL's (visible_to), before the count and the window.
    readable = Page.objects.visible_to(request.user).filter(space__slug=space)
    total = readable.count()
    rows = readable.order_by("title", "pk").values("ref", "title", "language", "updated_at", "slug")
    pages = [
        {
            "ref": row["ref"],
            "title": row["title"],
            "language": row["language"],
            "updated": row["updated_at"],
            "url": reverse("page_detail", kwargs={"space_slug": space, "page_slug": row["slug"]}),
        }
        for row in rows[offset : offset + limit]
    ]
    response = api.create_response(request, pages, status=200)
    response["X-Total-Count"] = str(total)
    if offset + limit < total:
        params = urlencode({"limit": limit, "offset": offset + limit})
        response["Link"] = f'<{request.path}?{params}>; rel="next"'
    return response


@api.get("/spaces", response={200: list[SpaceOut], **ERRORS}, summary="Spaces the caller may read")
def spaces(request: HttpRequest) -> Any:
    _check_rate(request, "calls", settings.API_RATE_LIMIT)
    return list(Space.objects.visible_to(request.user).order_by("title").values("slug", "title", "description"))


# --- Impact preview -------------------------------------------------------------------


def impact_json(preview: ImpactPreview) -> dict[str, Any]:
    def answer(outcome: Any) -> dict[str, Any] | None:
        if outcome is None:
            return None
        return {k: getattr(outcome, k) for k in ("mode", "text", "lead", "title", "ref", "url")}

    rows = [
        {
            "question": row.question,
            "mark": row.mark,
            "askers": row.askers,
            "times": row.times,
            "verified": row.verified,
            "before": answer(row.before),
            "after": answer(row.after),
        }
        for row in preview.rows
    ]
    number = preview.revision.number if preview.revision else 0
    return {
        "ref": preview.page.ref,
        "revision": number,
        "rows": rows,
        "not_previewed": preview.not_previewed,
        "failed": preview.failed,
    }


# A query parameter, not /pages/{ref}/impact: a page's ref may hold slashes (/pages/{path:ref}).
@api.get("/impact", response={200: ImpactOut, **ERRORS}, summary="Preview the answers a draft changes")
def impact(request: HttpRequest, ref: str, revision: int | None = Query(None, ge=1, le=10**9)) -> Any:
    """The questions whose answers publishing revision `revision` of page `ref` (default: its newest
    unpublished revision) would change, answered now and after, as the caller. 404 for a page the
    caller may not edit, as for a missing page or revision: its drafts are not theirs to see."""
    _check_rate(request, "calls", settings.API_RATE_LIMIT)
    # Each question is answered twice: counted with the person's questions.
    _check_rate(request, "ask", settings.ASK_RATE_LIMIT)
    page = Page.objects.editable_by(request.user).select_related("space", "published_revision").filter(ref=ref).first()
    draft = draft_revision(page, revision) if page is not None else None
    if page is None or draft is None:
        raise Http404
    return impact_json(impact_preview(user=request.user, page=page, revision=draft))
