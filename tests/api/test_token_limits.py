"""A person's limits hold whatever they call with: every token and the session share one count,
API searches count against the person's search limit, and nobody holds more than
API_MAX_TOKENS_PER_PERSON live tokens."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from accounts.models import PersonalToken
from accounts.services import TokenError, token_create
from tests.api.conftest import bearer

pytestmark = pytest.mark.django_db


def test_the_call_limit_counts_the_person_across_tokens_and_the_session(handbook, make_token, settings):
    settings.API_RATE_LIMIT = "3/m"
    first, second = bearer(make_token(handbook.reader)), bearer(make_token(handbook.reader))
    client = Client()
    statuses = [client.get("/api/v1/spaces", **headers).status_code for headers in (first, second, first, second)]
    assert statuses == [200, 200, 200, 429]
    session = Client()
    session.force_login(handbook.reader)
    assert session.get("/api/v1/spaces").status_code == 429  # the same person, signed in
    other = bearer(make_token(handbook.payroll))
    assert client.get("/api/v1/spaces", **other).status_code == 200  # another person has their own count


def test_api_searches_count_against_the_person_s_search_limit(handbook, make_token, settings):
    settings.SEARCH_RATE_LIMIT = "2/m"
    settings.API_RATE_LIMIT = "100/m"
    client = Client()
    client.force_login(handbook.reader)
    assert client.get("/search/?q=remote").status_code == 200
    headers = bearer(make_token(handbook.reader))
    assert client.get("/api/v1/search?q=remote", **headers).status_code == 200
    limited = client.get("/api/v1/search?q=remote", **bearer(make_token(handbook.reader)))
    assert limited.status_code == 429 and int(limited["Retry-After"]) > 0
    assert client.get("/search/?q=remote").status_code == 429  # and the web page sees the API's searches


def test_api_questions_count_against_the_person_s_ask_limit(handbook, make_token, settings):
    settings.ASK_RATE_LIMIT = "1/m"
    question = {"question": "How many days may staff work from home?"}
    first, second = bearer(make_token(handbook.reader, scope="ask")), bearer(make_token(handbook.reader, scope="ask"))
    client = Client()
    assert client.post("/api/v1/ask", question, content_type="application/json", **first).status_code == 200
    assert client.post("/api/v1/ask", question, content_type="application/json", **second).status_code == 429


def test_a_person_holds_at_most_the_configured_number_of_live_tokens(make_user, settings):
    settings.API_MAX_TOKENS_PER_PERSON = 3
    alice, bob = make_user("alice"), make_user("bob")
    made = [token_create(user=alice, name=f"t{n}") for n in range(3)]
    with pytest.raises(TokenError, match="already have 3 live tokens"):
        token_create(user=alice, name="one too many")
    token_create(user=bob, name="bob's own")  # counted per person
    # Revoked and expired tokens do not count.
    PersonalToken.objects.filter(pk=made[0].token.pk).update(revoked_at=timezone.now())
    PersonalToken.objects.filter(pk=made[1].token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    token_create(user=alice, name="t3")
    token_create(user=alice, name="t4")
    with pytest.raises(TokenError):
        token_create(user=alice, name="t5")


def test_the_default_cap_is_ten_and_the_page_and_command_say_so(make_user):
    alice = make_user("alice")
    for n in range(10):
        token_create(user=alice, name=f"t{n}")
    with pytest.raises(CommandError, match="already have 10 live tokens"):
        call_command("create_token", "alice", "--name", "eleventh", stdout=StringIO(), stderr=StringIO())
    client = Client()
    client.force_login(alice)
    response = client.post("/accounts/profile/", {"name": "eleventh", "scope": "read", "days": "30"})
    assert response.status_code == 400 and "already have 10 live tokens" in response.content.decode()
    french = Client(headers={"accept-language": "fr"})
    french.force_login(alice)
    response = french.post("/accounts/profile/", {"name": "eleventh", "scope": "read", "days": "30"})
    assert "déjà 10 jetons actifs" in response.content.decode()
    assert PersonalToken.objects.filter(user=alice).count() == 10


def test_mcp_calls_count_against_the_person_too(handbook, make_token, settings):
    settings.API_RATE_LIMIT = "2/m"
    first, second = bearer(make_token(handbook.reader)), bearer(make_token(handbook.reader))
    client = Client()
    assert [client.get("/api/v1/spaces", **first).status_code for _ in range(2)] == [200, 200]
    response = client.post("/mcp", {}, content_type="application/json", **second)
    assert response.status_code == 429
