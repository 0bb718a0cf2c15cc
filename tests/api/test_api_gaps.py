"""What a new API user trips over: JSON 404s for unknown paths, a space's page list, addresses in
search and Ask results, and the MCP address on the profile page."""

from __future__ import annotations

import html
import json
import re

import pytest
from django.test import Client

from tests.api.conftest import bearer

pytestmark = pytest.mark.django_db


def test_unknown_api_paths_are_a_json_404_for_anyone(handbook, make_token):
    """GIVEN a path under /api/v1/ the API does not have
    WHEN anyone calls it (signed in or not, any method)
    THEN the answer is the API's own JSON 404, the same as for a page that does not exist."""
    client, headers = Client(), bearer(make_token(handbook.reader))
    missing_page = client.get("/api/v1/pages/page:doesnotexist", **headers)
    paths = ("/api/v1/nope", "/api/v1/spaces/hr/pages/remote-work/extra", "/api/v1/", "/api/v1", "/api/v1/search/x")
    for path in paths:
        for call in (client.get, client.post, client.delete):
            for auth in (headers, {}):
                response = call(path, **auth)
                assert response.status_code == 404, (path, call, auth)
                assert response["Content-Type"].startswith("application/json"), (path, call, auth)
                assert response.json() == {"detail": "Not found."} == missing_page.json()
    assert client.get("/api/v1/spaces", **headers).status_code == 200  # known paths are untouched


def test_a_space_lists_the_pages_the_caller_may_read(handbook, make_token, make_page):
    client = Client()
    reader, payroll = bearer(make_token(handbook.reader)), bearer(make_token(handbook.payroll))
    listed = client.get("/api/v1/spaces/hr/pages", **reader)
    assert listed.status_code == 200 and listed["X-Total-Count"] == "1" and "Link" not in listed
    (page,) = listed.json()
    assert set(page) == {"ref", "title", "language", "updated", "url"}
    assert page["ref"] == handbook.remote.ref and page["url"] == handbook.remote.get_absolute_url()
    assert page["language"] == "en" and page["updated"].startswith(str(handbook.remote.updated_at.year))
    assert handbook.salary.ref not in listed.content.decode()
    both = client.get("/api/v1/spaces/hr/pages", **payroll)
    assert [p["title"] for p in both.json()] == ["Remote work", "Salary bands"] and both["X-Total-Count"] == "2"
    # The address opens the page on the site.
    web = Client()
    web.force_login(handbook.reader)
    assert web.get(page["url"]).status_code == 200


def test_the_page_list_pages_with_offset_and_a_next_link(handbook, make_token, make_page):
    for n in range(5):
        make_page(handbook.it, f"Laptop {n}", f"# Laptop {n}\n\nSetup notes.\n", index=False)
    client, headers = Client(), bearer(make_token(handbook.reader))
    everything = [p["ref"] for p in client.get("/api/v1/spaces/it/pages?limit=100", **headers).json()]
    assert len(everything) == 6
    seen, url = [], "/api/v1/spaces/it/pages?limit=4"
    while url:
        response = client.get(url, **headers)
        assert response["X-Total-Count"] == "6"
        seen += [p["ref"] for p in response.json()]
        link = response.get("Link", "")
        url = re.fullmatch(r'<([^>]+)>; rel="next"', link).group(1) if link else ""
    assert seen == everything
    for bad in ("limit=0", "limit=101", "offset=-1", "offset=99999999999999999999", "limit=x"):
        response = client.get(f"/api/v1/spaces/it/pages?{bad}", **headers)
        assert response.status_code == 400 and response.json()["detail"], bad


def test_a_hidden_space_answers_like_a_missing_one(handbook, make_token):
    client, outsider = Client(), bearer(make_token(handbook.outsider))
    hidden = client.get("/api/v1/spaces/hr/pages", **outsider)
    missing = client.get("/api/v1/spaces/nothing-here/pages", **outsider)
    assert hidden.status_code == missing.status_code == 404 and hidden.content == missing.content
    assert "X-Total-Count" not in hidden
    assert client.get("/api/v1/spaces/hr/pages").status_code == 401


def test_search_results_and_citations_carry_the_pages_address(handbook, make_token):
    client = Client()
    headers = bearer(make_token(handbook.reader, scope="ask"))
    hits = client.get("/api/v1/search", {"q": "second screen equipment"}, **headers).json()["results"]
    remote = next(h for h in hits if h["ref"] == handbook.remote.ref)
    assert remote["url"] == f"{handbook.remote.get_absolute_url()}#{remote['anchor']}" and remote["anchor"]
    answer = client.post(
        "/api/v1/ask",
        {"question": "How many days a week may staff work from home?"},
        content_type="application/json",
        **headers,
    ).json()
    citation = answer["citations"][0]
    expected = handbook.remote.get_absolute_url() + (f"#{citation['anchor']}" if citation["anchor"] else "")
    assert citation["url"] == expected


def test_the_profile_page_shows_the_mcp_address_and_a_client_configuration(handbook):
    client = Client()
    client.force_login(handbook.reader)
    page = client.get("/accounts/profile/").content.decode()
    address = re.search(r'data-testid="mcp-url">([^<]+)<', page).group(1)
    assert address == "http://testserver/mcp"
    snippet = html.unescape(re.search(r'data-testid="mcp-config">(.*?)</code>', page, re.DOTALL).group(1))
    config = json.loads(snippet)["mcpServers"]["handbook"]
    assert config["url"] == address and config["headers"] == {"Authorization": "Bearer <your token>"}
    assert "Personal access tokens" in page  # beside the tokens, not instead of them


def test_the_mcp_section_in_french(handbook):
    client = Client()
    client.force_login(handbook.reader)
    page = client.get("/accounts/profile/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "Connecter un assistant IA (MCP)" in page and "Configuration d’un client MCP" in page
