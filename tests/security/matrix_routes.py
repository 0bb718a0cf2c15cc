"""The route-complete permission proof: every route of ``tests/security/routes.py``, for every person.

A world (``tests/security/matrix.py``) gets one of every kind of object a person can make on
each page, each carrying a marker of its own: an earlier revision, a draft, an attachment, a
comment, a verified answer, a summary pick, an Ask question with its feedback, a template, a
translation link, and (every space requiring review) texts waiting for approval
(``matrix_approvals.py``). Then, for every person and every route filled with every object:

- a GET (and an htmx GET where the route answers fragments) never shows a marker or canary of an
  object they may not read;
- a POST the route's ``writes`` rule does not give them changes nothing in the database (every
  table compared before and after), and where they may not even see the object, it answers like
  the same route filled with an object that does not exist.

Findings are ``Leak`` rows, like the other matrices'.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote, urlencode

from tests.security.matrix import Leak, World, _canaries_in
from tests.security.route_objects import Filling, Objects, allowed_markers, may_see, may_write
from tests.security.routes import API, MCP_RESOURCES, MCP_TOOLS, WEB, Route

MISSING = {
    "space_slug": "no-such-space",
    "page_slug": "no-such-page",
    "number": "999",
    "comment_id": "999999",
    "attachment_id": "00000000-0000-4000-8000-000000000000",
    "filename": "missing.txt",
    "pk": "999999",
    "token_id": "999999",
    "ref": "page:00000000000000000000000000000000",
    "page_id": "999999",
    "space_id": "999999",
    "revision_id": "999999",
    "asklog_id": "999999",
}


# --- the database, before and after ----------------------------------------------------------

# Rows a refused request may write: the session of the client itself, nothing else.
UNCOMPARED = {"django_session"}


def database_state() -> dict[str, str]:
    """A digest of every table's rows."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
        tables = [t for (t,) in cursor.fetchall() if t not in UNCOMPARED]
        parts = [
            f"SELECT '{t}', md5(coalesce(string_agg(md5(r::text), '' ORDER BY md5(r::text)), '')) FROM \"{t}\" r"
            for t in tables
        ]
        cursor.execute(" UNION ALL ".join(parts))
        return dict(cursor.fetchall())


# --- the probe ---------------------------------------------------------------------------------

PARAM = re.compile(r"<(?:\w+:)?(\w+)>")


def web_url(pattern: str, values: dict[str, str]) -> str:
    if pattern.startswith("^api/v1"):
        return "/api/v1/no/such/operation"
    return "/" + PARAM.sub(lambda m: quote(values.get(m.group(1), MISSING.get(m.group(1), "x")), safe=":/"), pattern)


def _fill(template: str, values: dict[str, str], question: str) -> str:
    out = template.replace("{q}", question)
    for key, value in {**MISSING, **values}.items():
        out = out.replace("{" + key + "}", value)
    return out


def _question(objects: Objects, world: World, filling: Filling, n: int) -> str:
    """A question for the route: the verified question of the filling's page when it has one."""
    if filling.page_id in objects.asked:
        return objects.asked[filling.page_id]
    pool = objects.questions + world.queries
    return pool[n % len(pool)] if pool else "leave"


def route_findings(
    world: World, objects: Objects, username: str, client: Any, *, per_route: int | None = None
) -> list[Leak]:
    """Every web route, REST operation and MCP tool and resource, for one person."""
    from django.core.cache import cache

    user = world.users[username]
    client.logout()
    if user.is_active:
        client.force_login(user)
    cache.clear()  # rate limits: the proof makes many requests as one person
    allowed = allowed_markers(world, objects, username)
    expected = world.expected_visible(username) | world.expected_editable(username)
    if user.is_active and user.is_superuser:
        expected |= set(world.pages)
    spaces = world.expected_spaces(username)
    leaks: list[Leak] = []

    def scan(path: str, url: str, body: str, key: str) -> None:
        objects.probed.add(key)
        objects.counts["reads"] += 1
        for found in _canaries_in(body, world, expected, spaces):
            leaks.append(Leak(world.seed, username, url, path, found))
        for text in objects.markers:
            if text not in allowed and text in body:
                leaks.append(Leak(world.seed, username, url, path, text))

    for pattern, route in WEB.items():
        fillings = _fillings(objects, route, per_route, world, username)
        missing_status: dict[str, int] = {}  # by question: the same form, only the object missing
        for n, filling in enumerate(fillings):
            url = web_url(pattern, filling.values)
            question = _question(objects, world, filling, n)
            for query in route.queries:
                target = url + ("?" + _query(_fill(query, filling.values, question)) if query else "")
                scan(f"web GET {pattern}", target, _get(client, target), pattern)
                if route.hx:
                    scan(f"web GET(hx) {pattern}", target, _get(client, target, hx=True), pattern)
            if may_write(world, objects, username, route, filling) or pattern in NEVER_POSTED:
                continue
            if question not in missing_status:
                missing_status[question] = _refused_post(
                    leaks, client, world, username, pattern, web_url(pattern, {}), route, {}, question
                )
            status = _refused_post(leaks, client, world, username, pattern, url, route, filling.values, question)
            objects.counts["refused writes"] += 1
            objects.probed.add(f"POST {pattern}")
            if may_see(world, username, filling):
                continue
            objects.counts["refused writes on hidden objects"] += 1
            if status != missing_status[question]:
                detail = f"{status}, missing: {missing_status[question]}"
                leaks.append(Leak(world.seed, username, url, f"web POST {pattern}", detail))
    _api_findings(world, objects, username, client, scan, per_route)
    return leaks


# Routes whose POST is the session's own business (signing out would end the probe's session).
NEVER_POSTED = {"accounts/logout/", "admin/logout/"}


def _fillings(
    objects: Objects, route: Route, per_route: int | None, world: World | None = None, username: str = ""
) -> list[Filling]:
    """The objects filling a route; at a small count, those hidden from the person first (where a leak
    would be), then one they may see."""
    if not route.fills:
        return [Filling({})]
    found = objects.fillings.get(route.fills, [])
    if per_route is None or world is None:
        return found if per_route is None else found[:per_route]
    hidden = [f for f in found if not may_see(world, username, f)]
    return hidden[:per_route] + [f for f in found if may_see(world, username, f)][:1]


def _query(text: str) -> str:
    return urlencode([tuple(part.split("=", 1)) for part in text.split("&")])


def _get(client: Any, url: str, *, hx: bool = False) -> str:
    return _text(client.get(url, HTTP_HX_REQUEST="true") if hx else client.get(url))


def _refused_post(
    leaks: list[Leak],
    client: Any,
    world: World,
    username: str,
    pattern: str,
    url: str,
    route: Route,
    values: dict[str, str],
    question: str,
) -> int:
    """POST where the person may not: the database must not change. Returns the status."""
    data = {key: _fill(value, values, question) for key, value in route.data.items()}
    before = database_state()
    response = client.post(url, data)
    _text(response)  # a streamed answer runs while it is read
    changed = [table for table, digest in database_state().items() if before.get(table) != digest]
    if changed:
        leaks.append(Leak(world.seed, username, url, f"web POST {pattern}", f"changed {changed}"))
    return response.status_code


def _api_findings(world: World, objects: Objects, username: str, client: Any, scan: Any, per_route: int | None) -> None:
    """Every REST operation with a token of the person's, and every MCP tool and resource."""
    from accounts.services import token_create

    user = world.users[username]
    secret = token_create(user=user, name="routes-probe", scope="ask", days=1).secret
    headers = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    for operation, route in API.items():
        method, path = operation.split(" ", 1)
        for n, filling in enumerate(_fillings(objects, route, per_route, world, username)):
            url = _api_url(path, filling.values)
            question = _question(objects, world, filling, n)
            if method == "GET":
                for query in route.queries:
                    target = url + ("?" + _query(_fill(query, filling.values, question)) if query else "")
                    scan(f"api {operation}", target, _text(client.get(target, **headers)), operation)
            else:
                body = {key: _fill(value, filling.values, question) for key, value in route.data.items()}
                response = client.post(url, json.dumps(body), content_type="application/json", **headers)
                scan(f"api {operation}", url, _text(response), operation)
    mcp_headers = {"HTTP_ACCEPT": "application/json, text/event-stream", **headers}

    def mcp(method: str, params: dict[str, Any]) -> str:
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        return _text(client.post("/mcp", json.dumps(body), content_type="application/json", **mcp_headers))

    for name, route in MCP_TOOLS.items():
        for n, filling in enumerate(_fillings(objects, route, per_route, world, username)):
            question = _question(objects, world, filling, n)
            arguments: dict[str, Any] = {k: _fill(v, filling.values, question) for k, v in route.data.items()}
            if "limit" in arguments:
                arguments["limit"] = int(arguments["limit"])
            scan(f"mcp tool {name}", name, mcp("tools/call", {"name": name, "arguments": arguments}), f"tool {name}")
    for uri, route in MCP_RESOURCES.items():
        for filling in _fillings(objects, route, per_route, world, username):
            target = uri.replace("{ref}", filling.values.get("ref", ""))
            scan(f"mcp resource {uri}", target, mcp("resources/read", {"uri": target}), f"resource {uri}")


def _api_url(path: str, values: dict[str, str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: quote(values.get(m.group(1), "x"), safe=":/"), path)


def _text(response: Any) -> str:
    if hasattr(response, "streaming_content"):
        return b"".join(response.streaming_content).decode(errors="replace")
    return response.content.decode(errors="replace")
