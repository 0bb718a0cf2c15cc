"""The REST API: the same answers as the CLI for the same person, 401/403/404/429 in JSON, nothing hidden leaks."""

from __future__ import annotations

import json
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from accounts.models import PersonalToken
from tests.api.conftest import bearer

pytestmark = pytest.mark.django_db


def _cli(command: str, *args: str) -> dict:
    out = StringIO()
    call_command(command, *args, "--json", stdout=out, stderr=StringIO())
    return json.loads(out.getvalue())


def test_no_revoked_expired_or_garbage_token_is_a_json_401(handbook, make_token):
    client = Client()
    revoked, expired = make_token(handbook.reader), make_token(handbook.reader)
    PersonalToken.objects.filter(user=handbook.reader).update(revoked_at=timezone.now())
    PersonalToken.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    for headers in ({}, bearer(revoked), bearer(expired), bearer("hbk_garbage"), {"HTTP_AUTHORIZATION": "Basic x"}):
        for path in ("/api/v1/search?q=remote", "/api/v1/spaces", f"/api/v1/pages/{handbook.remote.ref}"):
            response = client.get(path, **headers)
            assert response.status_code == 401, (path, headers)
            assert response["Content-Type"].startswith("application/json") and "detail" in response.json()
            assert response["WWW-Authenticate"].startswith("Bearer")
        response = client.post("/api/v1/ask", {"question": "remote?"}, content_type="application/json", **headers)
        assert response.status_code == 401


def test_a_bad_token_is_refused_even_beside_a_valid_session(handbook):
    client = Client()
    client.force_login(handbook.reader)
    assert client.get("/api/v1/spaces").status_code == 200
    assert client.get("/api/v1/spaces", **bearer("hbk_revoked")).status_code == 401


def test_search_is_the_cli_json_for_the_same_person(handbook, make_token):
    for user in (handbook.reader, handbook.payroll, handbook.outsider):
        secret = make_token(user)
        for query in ("salary grid", "remote work", "vpn", "board acquisition"):
            response = Client().get("/api/v1/search", {"q": query, "limit": 5}, **bearer(secret))
            assert response.status_code == 200
            assert response.json() == _cli("search", query, "--user", user.username, "--limit", "5")
    hits = Client().get("/api/v1/search?q=salary+grid", **bearer(make_token(handbook.reader))).json()["results"]
    assert handbook.salary.ref not in {h["ref"] for h in hits}


def test_search_pages_with_offset_and_tells_the_total(handbook, make_token):
    client, secret = Client(), make_token(handbook.both)
    everything = client.get("/api/v1/search?q=work+vpn+remote+screen&limit=10", **bearer(secret))
    refs = [h["ref"] for h in everything.json()["results"]]
    assert len(refs) >= 2 and everything["X-Total-Count"] == str(len(refs))
    first = client.get("/api/v1/search?q=work+vpn+remote+screen&limit=1", **bearer(secret))
    assert [h["ref"] for h in first.json()["results"]] == refs[:1] and 'rel="next"' in first["Link"]
    second = client.get("/api/v1/search?q=work+vpn+remote+screen&limit=1&offset=1", **bearer(secret))
    assert [h["ref"] for h in second.json()["results"]] == refs[1:2]


def test_bad_parameters_are_a_json_400(handbook, make_token):
    client, headers = Client(), bearer(make_token(handbook.reader, scope="ask"))
    bad = ("", "?q=x&limit=0", "?q=x&limit=abc", "?q=x&offset=-1", "?q=x&mode=magic")
    for path in ("/api/v1/search" + query for query in bad):
        response = client.get(path, **headers)
        assert response.status_code == 400 and response.json()["detail"], path
    assert client.get("/api/v1/search?q=" + "word " * 2000, **headers).status_code == 400
    for body in ("{}", "not json", '{"question": ""}', '{"question": 3}'):
        response = client.post("/api/v1/ask", body, content_type="application/json", **headers)
        assert response.status_code == 400 and response.json()["detail"], body


def test_ask_is_the_cli_json_and_needs_the_ask_scope(handbook, make_token):
    client = Client()
    question = "How many days a week may staff work from home?"
    read_only = client.post(
        "/api/v1/ask", {"question": question}, content_type="application/json", **bearer(make_token(handbook.reader))
    )
    assert read_only.status_code == 403 and "ask" in read_only.json()["detail"]
    response = client.post(
        "/api/v1/ask",
        {"question": question},
        content_type="application/json",
        **bearer(make_token(handbook.reader, scope="ask")),
    )
    assert response.status_code == 200
    assert response.json() == _cli("ask", question, "--user", "reader")
    assert response.json()["citations"] and response.json()["citations"][0]["ref"] == handbook.remote.ref


def test_ask_never_cites_what_the_person_may_not_read(handbook, make_token):
    response = Client().post(
        "/api/v1/ask",
        {"question": "What is the salary grid for engineering levels?"},
        content_type="application/json",
        **bearer(make_token(handbook.reader, scope="ask")),
    )
    assert handbook.salary.ref not in json.dumps(response.json())


def test_ask_stream_ends_with_the_checked_answer(handbook, make_token):
    response = Client().post(
        "/api/v1/ask/stream",
        {"question": "How many days a week may staff work from home?"},
        content_type="application/json",
        **bearer(make_token(handbook.reader, scope="ask")),
    )
    assert response.status_code == 200 and response["Content-Type"].startswith("text/event-stream")
    body = b"".join(response.streaming_content).decode()
    last = body.strip().split("\n\n")[-1]
    assert last.startswith("event: done")
    assert json.loads(last.split("data: ", 1)[1])["citations"][0]["ref"] == handbook.remote.ref


def test_page_read_and_404_never_403(handbook, make_token):
    client = Client()
    payroll, reader = bearer(make_token(handbook.payroll)), bearer(make_token(handbook.reader))
    page = client.get(f"/api/v1/pages/{handbook.salary.ref}", **payroll).json()
    assert set(page) == {"ref", "title", "language", "revision", "html", "summary", "url"}
    assert page["url"] == handbook.salary.get_absolute_url()
    assert page["title"] == "Salary bands" and page["revision"] == 1 and "<h1" in page["html"]
    hidden = client.get(f"/api/v1/pages/{handbook.salary.ref}", **reader)
    missing = client.get("/api/v1/pages/page:doesnotexist", **reader)
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json() == missing.json() and hidden.content == missing.content
    assert client.get("/api/v1/spaces/hr/pages/salary-bands", **reader).status_code == 404
    assert client.get("/api/v1/spaces/hr/pages/salary-bands", **payroll).json()["ref"] == handbook.salary.ref


def test_spaces_lists_what_the_person_may_read(handbook, make_token):
    slugs = [s["slug"] for s in Client().get("/api/v1/spaces", **bearer(make_token(handbook.reader))).json()]
    assert slugs == ["hr", "it"]
    assert Client().get("/api/v1/spaces", **bearer(make_token(handbook.outsider))).json() == []


def test_permissions_are_read_fresh_on_every_request(handbook, make_token):
    from django.contrib.auth.models import Group

    client, headers = Client(), bearer(make_token(handbook.payroll))
    assert client.get(f"/api/v1/pages/{handbook.salary.ref}", **headers).status_code == 200
    handbook.payroll.groups.remove(Group.objects.get(name="payroll"))
    assert client.get(f"/api/v1/pages/{handbook.salary.ref}", **headers).status_code == 404
    hits = client.get("/api/v1/search?q=salary+grid", **headers).json()["results"]
    assert handbook.salary.ref not in {h["ref"] for h in hits}
    handbook.payroll.is_active = False
    handbook.payroll.save()
    assert client.get("/api/v1/spaces", **headers).status_code == 401


def test_session_calls_work_and_post_needs_csrf(handbook):
    client = Client(enforce_csrf_checks=True)
    client.force_login(handbook.reader)
    assert [s["slug"] for s in client.get("/api/v1/spaces").json()] == ["hr", "it"]
    question = {"question": "How many days a week may staff work from home?"}
    refused = client.post("/api/v1/ask", question, content_type="application/json")
    assert refused.status_code == 403
    client.get("/accounts/profile/")  # sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    response = client.post("/api/v1/ask", question, content_type="application/json", HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 200 and response.json()["citations"]


def test_rate_limit_per_person_is_a_json_429(handbook, make_token, settings):
    settings.API_RATE_LIMIT = "2/m"
    client, first, second = Client(), bearer(make_token(handbook.reader)), bearer(make_token(handbook.reader))
    assert [client.get("/api/v1/spaces", **first).status_code for _ in range(3)] == [200, 200, 429]
    limited = client.get("/api/v1/spaces", **first)
    assert limited.status_code == 429 and limited.json()["detail"] and int(limited["Retry-After"]) > 0
    # The person's count holds across their tokens; another person has their own.
    assert client.get("/api/v1/spaces", **second).status_code == 429
    assert client.get("/api/v1/spaces", **bearer(make_token(handbook.both))).status_code == 200


def test_openapi_schema_and_docs(handbook):
    client = Client()
    schema = client.get("/api/v1/openapi.json").json()
    assert schema["openapi"].startswith("3.") and schema["info"]["title"] == "Handbook API"
    assert {
        "/api/v1/search",
        "/api/v1/ask",
        "/api/v1/pages/{ref}",
        "/api/v1/spaces",
        "/api/v1/spaces/{space}/pages",
    } <= set(schema["paths"])
    listing = schema["paths"]["/api/v1/spaces/{space}/pages"]["get"]
    assert {p["name"] for p in listing["parameters"]} == {"space", "limit", "offset"}
    assert "404" in listing["responses"] and "401" in listing["responses"]
    hit = schema["components"]["schemas"]["SearchHit"]["properties"]
    assert "url" in hit and "url" in schema["components"]["schemas"]["AskCitation"]["properties"]
    assert schema["components"]["securitySchemes"]["TokenAuth"] == {"type": "http", "scheme": "bearer"}
    from openapi_spec_validator import validate

    validate(schema)
    docs = client.get("/api/v1/docs")
    assert docs.status_code == 200 and b"swagger" in docs.content.lower()


def test_search_lists_the_same_pages_in_the_same_order_as_the_web_search(handbook, make_token):
    """GIVEN the same person in the browser and through a token
    WHEN both search for the same words
    THEN the API's pages are the web page's results, in the same order."""
    web, headers = Client(), bearer(make_token(handbook.both))
    web.force_login(handbook.both)
    for query in ("work vpn remote screen", "salary grid", "vpn"):
        shown = [r.ref for r in web.get("/search/", {"q": query}).context["result"].results]
        api = [h["ref"] for h in Client().get("/api/v1/search", {"q": query}, **headers).json()["results"]]
        assert api == shown[: len(api)] and len(api) == min(len(shown), 10), query
