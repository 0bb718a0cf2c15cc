"""Personal tokens, scopes, CSRF and 404 parity over
the REST API and the MCP endpoint.

What was tried, endpoint by endpoint (REST search, spaces, page by ref, page by address, ask, ask
stream; MCP tools/list, tools/call, resources/read):

- every dead credential (revoked, expired, owner deactivated, unknown, the stored hash or the prefix
  presented as the token, another scheme, an empty bearer, the token in the query string) is a JSON
  401 with ``WWW-Authenticate: Bearer``, before any tool or query runs;
- a read-scoped token asks nowhere (REST ask, REST stream, MCP ask), and the answering code is not
  even reached; an ask-scoped token asks everywhere;
- a token opens nothing outside the API: not the web pages, not the profile page that mints tokens;
- a browser session writes nothing without its CSRF token (REST ask and stream, token creation and
  revocation, uploads), and a session cookie alone is never a caller of ``/mcp``;
- a page that exists but may not be read (restricted, another space, a draft, deleted) answers
  exactly like one that does not exist: same status, same bytes, same headers, and the same number
  of SQL statements (the server does the same work, so no timing tells them apart), over REST by
  token and by session, by ref and by address, over MCP, and on the web pages;
- an MCP batch cannot carry many tool calls on one rate-limit count.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import PersonalToken
from accounts.services import hash_token, token_create
from tests.handbook.conftest import _fast_passwords_and_clean_cache, handbook  # noqa: F401

pytestmark = pytest.mark.django_db

MCP_ACCEPT = "application/json, text/event-stream"
QUESTION = "How many days a week may staff work from home?"
MISSING_REF = "page:0123456789abcdef0123456789abcdef"


def _secret(user: Any, scope: str = "read", name: str = "review") -> str:
    return token_create(user=user, name=name, scope=scope, days=30).secret


def _bearer(secret: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def _mcp(client: Client, method: str, params: dict[str, Any], **headers: str) -> Any:
    body = {"jsonrpc": "2.0", "id": 7, "method": method, "params": params}
    return client.post("/mcp", json.dumps(body), content_type="application/json", HTTP_ACCEPT=MCP_ACCEPT, **headers)


def _calls(handbook: Any) -> list[tuple[str, Any]]:  # noqa: F811
    """Every API and MCP call, as (name, function of (client, headers) → response)."""
    ref = handbook.remote.ref
    return [
        ("GET search", lambda c, h: c.get("/api/v1/search?q=remote", **h)),
        ("GET spaces", lambda c, h: c.get("/api/v1/spaces", **h)),
        ("GET page by ref", lambda c, h: c.get(f"/api/v1/pages/{ref}", **h)),
        ("GET page by address", lambda c, h: c.get("/api/v1/spaces/hr/pages/remote-work", **h)),
        ("POST ask", lambda c, h: c.post("/api/v1/ask", {"question": QUESTION}, content_type="application/json", **h)),
        (
            "POST ask/stream",
            lambda c, h: c.post("/api/v1/ask/stream", {"question": QUESTION}, content_type="application/json", **h),
        ),
        ("MCP tools/list", lambda c, h: _mcp(c, "tools/list", {}, **h)),
        ("MCP search", lambda c, h: _mcp(c, "tools/call", {"name": "search", "arguments": {"query": "remote"}}, **h)),
        ("MCP ask", lambda c, h: _mcp(c, "tools/call", {"name": "ask", "arguments": {"question": QUESTION}}, **h)),
        ("MCP page", lambda c, h: _mcp(c, "resources/read", {"uri": f"handbook://pages/{ref}"}, **h)),
        ("MCP pages", lambda c, h: _mcp(c, "resources/read", {"uri": "handbook://pages"}, **h)),
    ]


@pytest.fixture
def never_answer(monkeypatch):  # type: ignore[no-untyped-def]
    """Fails the test if the answering code is reached: a refused call must stop before it."""
    import search.ask.answers as answers
    from api import mcp, views

    reached: list[str] = []

    def refuse(name: str) -> Any:
        def stand_in(*_args: Any, **_kwargs: Any) -> Any:
            reached.append(name)
            raise AssertionError(f"{name} was reached")

        return stand_in

    # The API modules import these names at their top: each holder gets the stand-in.
    for holder, names in (
        (answers, ("answer_question", "stream_answer")),
        (views, ("answer_question", "stream_answer")),
        (mcp, ("answer_question",)),
    ):
        for name in names:
            monkeypatch.setattr(holder, name, refuse(name))
    return reached


# --- dead credentials ------------------------------------------------------------------------------


def test_every_dead_credential_is_a_json_401_on_every_endpoint(handbook, never_answer, settings):  # noqa: F811
    settings.API_RATE_LIMIT = settings.ASK_RATE_LIMIT = "100000/m"
    reader = handbook.reader
    revoked, expired, live = _secret(reader, "ask"), _secret(reader, "ask"), _secret(reader, "ask")
    PersonalToken.objects.filter(token_hash=hash_token(revoked)).update(revoked_at=timezone.now())
    PersonalToken.objects.filter(token_hash=hash_token(expired)).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    leaver = handbook.outsider
    of_leaver = _secret(leaver, "ask")
    leaver.is_active = False
    leaver.save()
    stored = PersonalToken.objects.get(token_hash=hash_token(live))
    credentials = {
        "revoked": _bearer(revoked),
        "expired": _bearer(expired),
        "owner deactivated": _bearer(of_leaver),
        "unknown": _bearer("hbk_" + "A" * 43),
        "the stored hash": _bearer(stored.token_hash),
        "the hash with the marker": _bearer("hbk_" + stored.token_hash),
        "the prefix": _bearer(stored.prefix),
        "the token with a tail": _bearer(live + "x"),
        "another scheme": {"HTTP_AUTHORIZATION": f"Token {live}"},
        "basic": {"HTTP_AUTHORIZATION": f"Basic {live}"},
        "empty bearer": {"HTTP_AUTHORIZATION": "Bearer "},
        "empty header": {"HTTP_AUTHORIZATION": ""},
    }
    client = Client(enforce_csrf_checks=True)
    # A live session beside a dead token changes nothing: the header alone is judged.
    client.force_login(reader)
    refused = []
    for label, headers in credentials.items():
        for name, call in _calls(handbook):
            response = call(client, headers)
            ok = (
                response.status_code == 401
                and response["Content-Type"].startswith("application/json")
                and json.loads(response.content).get("detail")
                and response["WWW-Authenticate"].startswith("Bearer")
            )
            if not ok:
                refused.append((label, name, response.status_code))
    assert not refused, refused
    assert not never_answer
    # The same calls with the live token are answered (the check above can fail).
    assert Client().get("/api/v1/spaces", **_bearer(live)).status_code == 200
    assert _mcp(Client(), "tools/list", {}, **_bearer(live)).status_code == 200


def test_a_token_in_the_query_string_is_not_a_credential(handbook):  # noqa: F811
    secret = _secret(handbook.reader)
    client = Client()
    for path in ("/api/v1/spaces", f"/api/v1/pages/{handbook.remote.ref}"):
        for name in ("token", "access_token", "bearer"):
            assert client.get(f"{path}?{name}={secret}").status_code == 401, (path, name)
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
    response = client.post(f"/mcp?access_token={secret}", body, content_type="application/json", HTTP_ACCEPT=MCP_ACCEPT)
    assert response.status_code == 401


def test_a_post_with_no_credential_at_all_is_a_401_not_a_csrf_403(handbook, never_answer):  # noqa: F811
    client = Client(enforce_csrf_checks=True)  # as curl or any API client: no cookie, no CSRF token
    for path in ("/api/v1/ask", "/api/v1/ask/stream"):
        response = client.post(path, {"question": QUESTION}, content_type="application/json")
        assert response.status_code == 401, (path, response.status_code, response.content)
        assert response["WWW-Authenticate"].startswith("Bearer")
    assert not never_answer


# --- scopes -------------------------------------------------------------------------------------


def test_a_read_token_asks_nowhere_and_the_answer_code_is_never_reached(handbook, never_answer):  # noqa: F811
    client, headers = Client(), _bearer(_secret(handbook.reader, "read"))
    for path in ("/api/v1/ask", "/api/v1/ask/stream"):
        response = client.post(path, {"question": QUESTION}, content_type="application/json", **headers)
        assert response.status_code == 403, path
        assert response["Content-Type"].startswith("application/json") and "ask" in response.json()["detail"]
    response = _mcp(client, "tools/call", {"name": "ask", "arguments": {"question": QUESTION}}, **headers)
    result = response.json()["result"]
    assert result["isError"] is True and "ask" in result["content"][0]["text"]
    assert "structuredContent" not in result or not result["structuredContent"]
    assert not never_answer
    # Reading is what a read token is for.
    assert client.get("/api/v1/search?q=remote", **headers).status_code == 200
    found = _mcp(client, "tools/call", {"name": "search", "arguments": {"query": "remote"}}, **headers).json()
    assert found["result"]["isError"] is False


def test_an_ask_token_asks_everywhere(handbook):  # noqa: F811
    client, headers = Client(), _bearer(_secret(handbook.reader, "ask"))
    answer = client.post("/api/v1/ask", {"question": QUESTION}, content_type="application/json", **headers)
    assert answer.status_code == 200 and answer.json()["citations"][0]["ref"] == handbook.remote.ref
    stream = client.post("/api/v1/ask/stream", {"question": QUESTION}, content_type="application/json", **headers)
    assert stream.status_code == 200 and b"event: done" in b"".join(stream.streaming_content)
    mcp = _mcp(client, "tools/call", {"name": "ask", "arguments": {"question": QUESTION}}, **headers).json()
    assert mcp["result"]["isError"] is False
    assert mcp["result"]["structuredContent"]["citations"][0]["ref"] == handbook.remote.ref


def test_a_token_opens_nothing_outside_the_api(handbook):  # noqa: F811
    """A bearer token is not a web login: it cannot read the site, nor mint itself a wider token."""
    secret = _secret(handbook.reader, "read")
    client = Client()
    for path in ("/", "/spaces/hr/", handbook.remote.get_absolute_url(), "/accounts/profile/", "/search/?q=remote"):
        response = client.get(path, **_bearer(secret))
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], path
    before = PersonalToken.objects.count()
    minted = client.post("/accounts/profile/", {"name": "wider", "scope": "ask", "days": "30"}, **_bearer(secret))
    assert minted.status_code in (302, 403) and PersonalToken.objects.count() == before


def test_a_deactivated_person_s_session_is_no_caller(handbook):  # noqa: F811
    client = Client()
    client.force_login(handbook.reader)
    assert client.get("/api/v1/spaces").status_code == 200
    handbook.reader.is_active = False
    handbook.reader.save()
    for path in ("/api/v1/spaces", "/api/v1/search?q=remote", f"/api/v1/pages/{handbook.remote.ref}"):
        assert client.get(path).status_code == 401, path


# --- CSRF on session writes --------------------------------------------------------------------


def test_session_writes_need_the_csrf_token_and_mcp_never_takes_a_cookie(handbook, never_answer, settings, tmp_path):  # noqa: F811
    settings.MEDIA_ROOT = tmp_path / "media"
    client = Client(enforce_csrf_checks=True)
    client.force_login(handbook.editor)
    for path in ("/api/v1/ask", "/api/v1/ask/stream"):
        response = client.post(path, {"question": QUESTION}, content_type="application/json")
        assert response.status_code == 403, path
    assert not never_answer
    # The MCP endpoint is CSRF-exempt because it takes no cookie: a session alone is a 401.
    assert _mcp(client, "tools/list", {}).status_code == 401
    assert _mcp(client, "tools/call", {"name": "search", "arguments": {"query": "remote"}}).status_code == 401
    # Tokens are minted and revoked only with the CSRF token.
    live = token_create(user=handbook.editor, name="kept", scope="read", days=5).token
    before = PersonalToken.objects.count()
    assert client.post("/accounts/profile/", {"name": "x", "scope": "ask", "days": "30"}).status_code == 403
    assert client.post(f"/accounts/tokens/{live.pk}/revoke/").status_code == 403
    assert PersonalToken.objects.count() == before
    live.refresh_from_db()
    assert live.revoked_at is None
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = client.post(
        handbook.remote.get_absolute_url() + "attachments/", {"file": SimpleUploadedFile("a.txt", b"x")}
    )
    assert upload.status_code == 403
    assert not handbook.remote.attachments.exists()
    # With the token the same session call goes through (the refusals above were CSRF, not the route).
    client.get("/accounts/profile/")
    csrf = client.cookies["csrftoken"].value
    revoke = client.post(f"/accounts/tokens/{live.pk}/revoke/", HTTP_X_CSRFTOKEN=csrf)
    assert revoke.status_code == 302


# --- 404 parity -----------------------------------------------------------------------------------


@pytest.fixture
def hidden(handbook, make_page):  # noqa: F811
    """Pages that exist and that ``handbook.reader`` may not read, one of each kind."""
    from handbook.services import page_create, page_delete

    draft = page_create(space=handbook.hr, title="Draft plan", body="# Draft plan\n\nNot yet.\n", publish=False)
    deleted = make_page(handbook.hr, "Old policy", "# Old policy\n\nGone.\n")
    page_delete(page=deleted)
    return {"restricted": handbook.salary, "other space": handbook.minutes, "draft": draft, "deleted": deleted}


def _counted(call: Any) -> tuple[Any, int]:
    with CaptureQueriesContext(connection) as queries:
        response = call()
    return response, len(queries)


def _comparable(response: Any) -> tuple[int, bytes, dict[str, str]]:
    return response.status_code, response.content, dict(response.items())


@pytest.mark.parametrize("via", ["token", "session"])
def test_rest_answers_a_hidden_page_exactly_like_a_missing_one(handbook, hidden, via):  # noqa: F811
    client, headers = Client(), {}
    if via == "token":
        headers = _bearer(_secret(handbook.reader))
    else:
        client.force_login(handbook.reader)
    client.get("/api/v1/spaces", **headers)  # the token's first use writes its last use; not counted below
    missing, missing_queries = _counted(lambda: client.get(f"/api/v1/pages/{MISSING_REF}", **headers))
    assert missing.status_code == 404 and missing.json() == {"detail": "Not found."}
    assert missing["X-Content-Type-Options"] == "nosniff"
    by_address, address_queries = _counted(lambda: client.get("/api/v1/spaces/hr/pages/no-such-page", **headers))
    nowhere, nowhere_queries = _counted(lambda: client.get("/api/v1/spaces/no-such-space/pages/x", **headers))
    assert _comparable(by_address) == _comparable(nowhere) == _comparable(missing)
    assert address_queries == nowhere_queries
    for kind, page in hidden.items():
        response, queries = _counted(lambda page=page: client.get(f"/api/v1/pages/{page.ref}", **headers))
        assert _comparable(response) == _comparable(missing), kind
        assert queries == missing_queries, (kind, queries, missing_queries)
        address = f"/api/v1/spaces/{page.space.slug}/pages/{page.slug}"
        response, queries = _counted(lambda address=address: client.get(address, **headers))
        assert _comparable(response) == _comparable(missing), kind
        assert queries == address_queries, (kind, queries, address_queries)
    # The reader does read the pages they may read (the comparison above can fail).
    assert client.get(f"/api/v1/pages/{handbook.remote.ref}", **headers).status_code == 200


def test_a_superuser_gets_drafts_and_deleted_pages_as_missing_too(handbook, hidden, make_user):  # noqa: F811
    client, headers = Client(), _bearer(_secret(make_user("root", superuser=True)))
    client.get("/api/v1/spaces", **headers)
    missing = client.get(f"/api/v1/pages/{MISSING_REF}", **headers)
    for kind in ("draft", "deleted"):
        assert _comparable(client.get(f"/api/v1/pages/{hidden[kind].ref}", **headers)) == _comparable(missing), kind
    assert client.get(f"/api/v1/pages/{hidden['restricted'].ref}", **headers).status_code == 200


def test_mcp_answers_a_hidden_page_exactly_like_a_missing_one(handbook, hidden):  # noqa: F811
    client, headers = Client(), _bearer(_secret(handbook.reader))
    _mcp(client, "tools/list", {}, **headers)  # first use

    def read(ref: str) -> tuple[Any, int]:
        return _counted(lambda: _mcp(client, "resources/read", {"uri": f"handbook://pages/{ref}"}, **headers))

    missing, missing_queries = read(MISSING_REF)
    assert missing.status_code == 200 and "error" in missing.json() and "result" not in missing.json()
    for kind, page in hidden.items():
        response, queries = read(page.ref)
        assert response.status_code == missing.status_code, kind
        assert response.content.replace(page.ref.encode(), b"REF") == missing.content.replace(
            MISSING_REF.encode(), b"REF"
        ), kind
        assert dict(response.items()).keys() == dict(missing.items()).keys(), kind
        assert queries == missing_queries, (kind, queries, missing_queries)
        assert page.title.encode() not in response.content
    readable = _mcp(client, "resources/read", {"uri": f"handbook://pages/{handbook.remote.ref}"}, **headers)
    assert "result" in readable.json()


def test_the_web_answers_a_hidden_page_space_or_file_like_a_missing_one(handbook, hidden, settings, tmp_path):  # noqa: F811
    import io

    from handbook.attachments.services import attachment_create

    settings.MEDIA_ROOT = tmp_path / "media"
    client = Client()
    client.force_login(handbook.reader)
    client.get("/")

    def same(hidden_path: str, missing_path: str, title: str) -> None:
        response, queries = _counted(lambda: client.get(hidden_path))
        control, control_queries = _counted(lambda: client.get(missing_path))
        assert response.status_code == control.status_code == 404, (hidden_path, response.status_code)
        assert queries == control_queries, (hidden_path, queries, control_queries)
        assert title.encode() not in response.content

    for kind, page in hidden.items():
        same(f"/spaces/{page.space.slug}/{page.slug}/", f"/spaces/{page.space.slug}/no-such-page/", page.title)
        same(f"/spaces/{page.space.slug}/{page.slug}/edit/", f"/spaces/{page.space.slug}/no-such-page/edit/", kind)
    same("/spaces/board/", "/spaces/no-such-space/", "Board")
    # The old address of a renamed hidden page redirects only those who may read it.
    from handbook.services import page_rename

    page_rename(page=handbook.salary, title="Salary grid")
    same("/spaces/hr/salary-bands/", "/spaces/hr/no-such-page/", "Salary")
    grid = attachment_create(page=handbook.salary, stream=io.BytesIO(b"grid"), name="grid.txt")
    same(grid.get_absolute_url(), "/attachments/00000000-0000-4000-8000-000000000000/grid.txt", "grid")


# --- MCP transport ---------------------------------------------------------------------------------


def test_an_mcp_batch_carries_no_tool_call(handbook, settings):  # noqa: F811
    """One HTTP request is one rate-limit count: a JSON-RPC batch must not run many calls on it."""
    settings.API_RATE_LIMIT = "2/m"
    client, headers = Client(), _bearer(_secret(handbook.reader))
    batch = [
        {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "search", "arguments": {"query": "vpn"}}}
        for n in range(5)
    ]
    response = client.post(
        "/mcp", json.dumps(batch), content_type="application/json", HTTP_ACCEPT=MCP_ACCEPT, **headers
    )
    assert response.status_code == 400 and b"VPN access" not in response.content
    assert _mcp(client, "tools/list", {}, **headers).status_code == 200
    assert _mcp(client, "tools/list", {}, **headers).status_code == 429
