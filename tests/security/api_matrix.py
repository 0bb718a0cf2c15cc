"""The permission matrix and revocation trials over the API paths: REST (token and session) and MCP.

Reuses the seeded worlds and the canary oracle of ``tests/security/matrix.py``:
a caller must never receive the canary of a page (or space) they cannot read,
and a page they cannot read answers exactly like a page that does not exist.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from tests.security.matrix import Leak, World, _canaries_in
from tests.security.revocation import set_up_trial

VIAS = ("token", "session")
MISSING_REF = "page:00000000000000000000000000000000"
MCP_HEADERS = {"HTTP_ACCEPT": "application/json, text/event-stream"}


def _auth(world: World, username: str, client: Any, via: str) -> dict[str, str]:
    """Log the client in as ``username`` by session, or return the headers of a fresh ask-scoped token."""
    from accounts.services import token_create

    user = world.users[username]
    client.logout()
    if via == "session":
        if user.is_active:
            client.force_login(user)
        return {}
    secret = token_create(user=user, name="matrix", scope="ask", days=1).secret
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}


def _mcp(client: Any, headers: dict[str, str], method: str, params: dict[str, Any]) -> Any:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    return client.post("/mcp", json.dumps(body), content_type="application/json", **MCP_HEADERS, **headers)


def check_api_case(world: World, username: str, queries: list[str], client: Any, *, via: str) -> list[Leak]:
    """Every API read path for one user (and each query): search, ask, pages, spaces and their page lists;
    MCP (tools and resources) for tokens."""
    from django.core.cache import cache

    user = world.users[username]
    expected = world.expected_visible(username)
    spaces = world.expected_spaces(username)
    headers = _auth(world, username, client, via)
    denied = None if user.is_active else 401
    leaks: list[Leak] = []

    def check(path: str, query: str, response: Any) -> None:
        body = response.content.decode(errors="replace")
        wanted = denied or (None if path.endswith(".page") else 200)  # pages: checked below
        if wanted and response.status_code != wanted:
            leaks.append(Leak(world.seed, username, query, path, f"status {response.status_code}, not {wanted}"))
        # A page read by MCP has a result iff it is readable: checked below.
        if (
            path.startswith("mcp.")
            and path not in ("mcp.page", "mcp.read_page")
            and not denied
            and '"result"' not in body
        ):
            leaks.append(Leak(world.seed, username, query, path, f"no result: {body[:200]}"))
        for canary in _canaries_in(body, world, expected, spaces):
            leaks.append(Leak(world.seed, username, query, path, canary))

    for query in queries:
        cache.clear()  # rate-limit counters: the matrix is many calls by one token
        check(
            f"api.{via}.search", query, client.get("/api/v1/search?" + urlencode({"q": query, "limit": 50}), **headers)
        )
        check(
            f"api.{via}.ask",
            query,
            client.post("/api/v1/ask", {"question": query}, content_type="application/json", **headers),
        )
        if via == "token":
            check(
                "mcp.search",
                query,
                _mcp(client, headers, "tools/call", {"name": "search", "arguments": {"query": query}}),
            )
            check(
                "mcp.ask", query, _mcp(client, headers, "tools/call", {"name": "ask", "arguments": {"question": query}})
            )
    check(f"api.{via}.spaces", "", client.get("/api/v1/spaces", **headers))
    if via == "token":
        check("mcp.pages", "", _mcp(client, headers, "resources/read", {"uri": "handbook://pages"}))

    leaks += check_space_pages(world, username, client, via=via, headers=headers)

    missing = client.get(f"/api/v1/pages/{MISSING_REF}", **headers)
    # What the read_page tool answers for a page that does not exist: once per user, as ``missing``.
    gone = None
    if via == "token" and not denied:
        args = {"name": "read_page", "arguments": {"ref": MISSING_REF}}
        gone = _mcp(client, headers, "tools/call", args).json().get("result")
    for page_id, facts in world.pages.items():
        response = client.get(f"/api/v1/pages/{facts['ref']}", **headers)
        check(f"api.{via}.page", facts["ref"], response)
        if not denied:
            visible = page_id in expected
            if visible and response.status_code != 200:
                leaks.append(Leak(world.seed, username, "", f"api.{via}.page", f"{page_id}: {response.status_code}"))
            if not visible and (response.status_code, response.content) != (404, missing.content):
                leaks.append(Leak(world.seed, username, "", f"api.{via}.page", f"{page_id} differs from missing"))
        if via == "token":
            read = _mcp(client, headers, "resources/read", {"uri": f"handbook://pages/{facts['ref']}"})
            check("mcp.page", facts["ref"], read)
            if not denied and ('"result"' in read.content.decode()) != (page_id in expected):
                leaks.append(Leak(world.seed, username, "", "mcp.page", f"{page_id}: result iff readable"))
            # The read_page tool: the page iff readable, else its error, the same as for a missing ref.
            tool = _mcp(client, headers, "tools/call", {"name": "read_page", "arguments": {"ref": facts["ref"]}})
            check("mcp.read_page", facts["ref"], tool)
            if not denied:
                result = tool.json().get("result", {})
                if result.get("isError", True) == (page_id in expected):
                    leaks.append(Leak(world.seed, username, "", "mcp.read_page", f"{page_id}: page iff readable"))
                if page_id not in expected and json.dumps(result).replace(facts["ref"], MISSING_REF) != json.dumps(
                    gone
                ):
                    leaks.append(Leak(world.seed, username, "", "mcp.read_page", f"{page_id} differs from missing"))
    return leaks


def check_space_pages(world: World, username: str, client: Any, *, via: str, headers: dict[str, str]) -> list[Leak]:
    """A space's page list holds exactly the caller's readable pages of that space, their count in
    X-Total-Count; a space they may not read answers like one that does not exist."""
    user = world.users[username]
    expected = world.expected_visible(username)
    spaces = world.expected_spaces(username)
    denied = None if user.is_active else 401
    leaks: list[Leak] = []
    missing_space = client.get("/api/v1/spaces/no-such-space/pages", **headers)
    for slug in world.spaces:
        response = client.get(f"/api/v1/spaces/{slug}/pages?limit=100", **headers)
        path = f"api.{via}.space_pages"
        for canary in _canaries_in(response.content.decode(errors="replace"), world, expected, spaces):
            leaks.append(Leak(world.seed, username, slug, path, canary))
        if denied:
            if response.status_code != denied:
                leaks.append(Leak(world.seed, username, slug, path, f"status {response.status_code}, not {denied}"))
            continue
        if slug not in spaces:
            if (response.status_code, response.content) != (404, missing_space.content):
                leaks.append(Leak(world.seed, username, slug, path, "differs from a missing space"))
            continue
        wanted = {world.pages[pid]["ref"] for pid in expected if world.pages[pid]["space"] == slug}
        listed = [p["ref"] for p in response.json()] if response.status_code == 200 else None
        if listed is None or set(listed) != wanted or len(listed) != len(wanted):
            leaks.append(Leak(world.seed, username, slug, path, f"{listed} != {sorted(wanted)}"))
        if response.get("X-Total-Count") != str(len(wanted)):
            leaks.append(Leak(world.seed, username, slug, path, f"X-Total-Count {response.get('X-Total-Count')}"))
    return leaks


# --- revocation --------------------------------------------------------------------------

KINDS = ("remove_from_group", "move_to_restricted_space", "restrict_page", "provider_sign_in")


def run_api_trial(seed: int, kind: str, client: Any, *, via: str) -> tuple[bool, bool]:
    """(saw before, leaked after): the very next API call after a permission change excludes the page.

    ``provider_sign_in``: the identity provider drops the group and the person signs in again
    (the sign-in's group synchronisation, ``accounts.oidc.sync_groups``, with the new claims).
    """
    from accounts.oidc import sync_groups

    trial = set_up_trial(seed, f"a{seed}{kind[:3]}{via[:1]}")
    user, secret, page = trial.user, trial.secret, trial.page
    world = World(seed=seed, users={user.username: user})
    headers = _auth(world, user.username, client, via)

    def sees() -> bool:
        # Cached answers are kept on purpose: a warm cache must not leak either.
        found = client.get("/api/v1/search?" + urlencode({"q": f"bonus plan {secret}"}), **headers).content.decode()
        answer = client.post(
            "/api/v1/ask", {"question": f"What is the bonus plan {secret}?"}, content_type="application/json", **headers
        ).content.decode()
        direct = client.get(f"/api/v1/pages/{page.ref}", **headers).status_code
        return page.ref in found or page.ref in answer or direct == 200

    saw_before = sees()
    if kind == "provider_sign_in":
        from django.test import override_settings

        with override_settings(OIDC_GROUP_MAP={"idp-readers": [trial.readers.name], "idp-other": [trial.other.name]}):
            sync_groups(user, {"groups": ["idp-other-unrelated"]})
    else:
        trial.revoke(kind)
    return saw_before, sees()
