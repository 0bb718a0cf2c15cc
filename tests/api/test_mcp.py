"""The MCP endpoint, driven by the official SDK's own client over streamable HTTP against a live server."""

from __future__ import annotations

import asyncio
import json
from io import StringIO
from typing import Any

import httpx2
import pytest
from django.core.management import call_command
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.django_db(transaction=True)


def _session(url: str, secret: str, steps: Any) -> Any:
    async def run() -> Any:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=60)
        async with http, Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client:
            return await steps(client)

    return asyncio.run(run())


def _cli_search(query: str, username: str) -> dict:
    out = StringIO()
    call_command("search", query, "--user", username, "--json", stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


def test_tools_and_resources_act_as_the_token_owner(live_server, handbook, make_token):
    async def steps(client: Client) -> dict[str, Any]:
        tools = await client.list_tools()
        found = await client.call_tool("search", {"query": "salary grid", "limit": 5})
        answer = await client.call_tool("ask", {"question": "How many days a week may staff work from home?"})
        listing = await client.read_resource("handbook://pages")
        page = await client.read_resource(f"handbook://pages/{handbook.remote.ref}")
        hidden = await _read_error(client, f"handbook://pages/{handbook.salary.ref}")
        missing = await _read_error(client, "handbook://pages/page:doesnotexist")
        read = await client.call_tool("read_page", {"ref": handbook.remote.ref})
        read_hidden = await client.call_tool("read_page", {"ref": handbook.salary.ref})
        read_missing = await client.call_tool("read_page", {"ref": "page:doesnotexist"})
        return {
            "read": read,
            "read_hidden": read_hidden,
            "read_missing": read_missing,
            "tools": {t.name for t in tools.tools},
            "found": found,
            "answer": answer,
            "listing": json.loads(listing.contents[0].text),
            "page": json.loads(page.contents[0].text),
            "hidden": hidden,
            "missing": missing,
        }

    out = _session(live_server.url, make_token(handbook.reader, scope="ask"), steps)
    assert {"search", "ask", "read_page"} <= out["tools"]
    assert not out["found"].is_error
    assert out["found"].structured_content == _cli_search("salary grid", "reader")
    assert handbook.salary.ref not in json.dumps(out["found"].structured_content)
    assert out["answer"].structured_content["citations"][0]["ref"] == handbook.remote.ref
    assert {p["ref"] for p in out["listing"]} == {handbook.remote.ref, handbook.vpn.ref}
    assert out["page"]["ref"] == handbook.remote.ref and out["page"]["title"] == "Remote work"
    assert out["hidden"] and out["hidden"] == out["missing"].replace("page:doesnotexist", handbook.salary.ref)
    # read_page: the resource's page, and its "No page" for a hidden page and a missing one alike.
    assert not out["read"].is_error and out["read"].structured_content == out["page"]
    assert out["read"].structured_content["url"] == handbook.remote.get_absolute_url()
    hidden_text, missing_text = out["read_hidden"].content[0].text, out["read_missing"].content[0].text
    assert out["read_hidden"].is_error and out["read_missing"].is_error and "No page" in hidden_text
    assert hidden_text == missing_text.replace("page:doesnotexist", handbook.salary.ref)
    assert "Remote work" not in hidden_text and "Salary" not in hidden_text
    assert all(h["url"].startswith("/spaces/") for h in out["found"].structured_content["results"])


async def _read_error(client: Client, uri: str) -> str:
    try:
        await client.read_resource(uri)
    except Exception as exc:  # the SDK raises the server's error
        return str(exc)
    return ""


def test_a_read_token_cannot_ask_and_permissions_are_read_fresh(live_server, handbook, make_token):
    from django.contrib.auth.models import Group

    secret = make_token(handbook.payroll)

    async def search(client: Client) -> Any:
        return await client.call_tool("search", {"query": "salary grid"})

    async def ask(client: Client) -> Any:
        return await client.call_tool("ask", {"question": "What is the salary grid?"})

    refs = {h["ref"] for h in _session(live_server.url, secret, search).structured_content["results"]}
    assert handbook.salary.ref in refs
    refused = _session(live_server.url, secret, ask)
    assert refused.is_error and "ask" in refused.content[0].text
    handbook.payroll.groups.remove(Group.objects.get(name="payroll"))
    refs = {h["ref"] for h in _session(live_server.url, secret, search).structured_content["results"]}
    assert handbook.salary.ref not in refs


def test_no_or_revoked_token_is_a_401(live_server, handbook, make_token):
    from accounts.services import token_authenticate, token_revoke

    secret = make_token(handbook.reader)
    token_revoke(user=handbook.reader, token_id=token_authenticate(secret).pk)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    for headers in ({}, {"Authorization": f"Bearer {secret}"}):
        response = httpx2.post(f"{live_server.url}/mcp", json=body, headers=headers)
        assert response.status_code == 401 and response.json()["detail"]


def test_pages_whose_ref_holds_a_slash_are_resources_too(live_server, handbook, make_page, make_token):
    """Refs such as ``demo:it/vpn-setup`` (load_corpus ids, Markdown file paths): read as written or
    percent-escaped, and listed under a URI the client reads back; hidden ones stay "No page"."""
    from urllib.parse import quote

    nested = make_page(handbook.it, "VPN setup", "# VPN setup\n\nSteps.\n", ref="demo:it/vpn-setup", index=False)
    odd = make_page(handbook.it, "Odd ref", "# Odd\n", ref="md:it:guide/a b#c?.md", index=False)
    hidden = make_page(handbook.hr, "Payroll runs", "# Runs\n", ref="demo:hr/payroll", restricted_to=("payroll",))

    async def steps(client: Client) -> dict[str, Any]:
        listing = json.loads((await client.read_resource("handbook://pages")).contents[0].text)
        uris = {p["ref"]: p["uri"] for p in listing}
        read = {}
        for name, uri in {
            "raw": "handbook://pages/demo:it/vpn-setup",
            "escaped": "handbook://pages/" + quote("demo:it/vpn-setup", safe=""),
            "listed": uris[nested.ref],
            "odd": uris[odd.ref],
            "old": f"handbook://pages/{handbook.vpn.ref}",
        }.items():
            read[name] = json.loads((await client.read_resource(uri)).contents[0].text)["ref"]
        return {
            "read": read,
            "hidden": await _read_error(client, "handbook://pages/demo:hr/payroll"),
            "missing": await _read_error(client, "handbook://pages/demo:hr/nothing"),
            "uris": uris,
        }

    out = _session(live_server.url, make_token(handbook.reader), steps)
    assert out["read"] == {
        "raw": nested.ref,
        "escaped": nested.ref,
        "listed": nested.ref,
        "odd": odd.ref,
        "old": handbook.vpn.ref,
    }
    assert out["uris"][handbook.vpn.ref] == f"handbook://pages/{handbook.vpn.ref}"  # refs without "/": as before
    assert out["hidden"] and out["hidden"] == out["missing"].replace("demo:hr/nothing", hidden.ref)
