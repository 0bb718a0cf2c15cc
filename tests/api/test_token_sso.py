"""Personal tokens stop with their owner: deactivated, gone quiet at the provider, or refused at sign-in;
and the owner sees where each token was last used from."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import PersonalToken, SSOIdentity
from accounts.services import token_authenticate, token_create
from tests.api.conftest import bearer
from tests.api.test_sso_signin import ISSUER, Provider, configure_provider

pytestmark = pytest.mark.django_db


@pytest.fixture
def provider(settings) -> Provider:  # type: ignore[no-untyped-def]
    return configure_provider(settings)


def test_a_deactivated_owner_s_tokens_stop_on_the_very_next_call(make_user):
    alice = make_user("alice", "staff")
    secret = token_create(user=alice, name="bot").secret
    client = Client()
    assert client.get("/api/v1/spaces", **bearer(secret)).status_code == 200
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    assert client.get("/api/v1/spaces", **bearer(secret)).status_code == 401
    assert client.post("/mcp", {}, content_type="application/json", **bearer(secret)).status_code == 401


def test_tokens_of_a_person_known_by_sso_stop_when_they_stop_signing_in(provider, settings):
    settings.TOKEN_SSO_FRESHNESS_DAYS = 14
    erin = provider.sign_in("sub-erin", "erin")
    secret = token_create(user=erin, name="bot").secret
    assert token_authenticate(secret) is not None
    identity = SSOIdentity.objects.get(user=erin)
    identity.last_login_at = timezone.now() - timedelta(days=15)
    identity.save()
    assert token_authenticate(secret) is None  # the provider may have removed her two weeks ago
    assert provider.sign_in("sub-erin", "erin").pk == erin.pk
    assert token_authenticate(secret) is not None  # signing in again shows she is still there


def test_a_link_made_by_an_admin_needs_a_sign_in_before_tokens_work(make_user):
    carol = make_user("carol")
    secret = token_create(user=carol, name="bot").secret
    SSOIdentity.objects.create(user=carol, issuer=ISSUER, subject="s-carol")
    assert token_authenticate(secret) is None


def test_a_refused_sign_in_of_a_known_person_stops_their_tokens(provider):
    erin = provider.sign_in("sub-erin", "erin")
    secret = token_create(user=erin, name="bot").secret
    # The provider vouches for erin, but the handbook refuses this sign-in (userinfo about someone else).
    assert provider.sign_in("sub-erin", "erin", userinfo={"sub": "sub-other"}) is None
    identity = SSOIdentity.objects.get(user=erin)
    assert identity.refused_at is not None and "subject" in identity.refused_reason
    assert token_authenticate(secret) is None
    assert Client().get("/api/v1/spaces", **bearer(secret)).status_code == 401
    # A token that was not signed for erin does not touch her (nothing vouched for her).
    provider.sign_in("sub-erin", "erin")
    assert token_authenticate(secret) is not None
    assert provider.sign_in("sub-erin", "erin", aud="another-client") is None
    assert token_authenticate(secret) is not None


def test_people_without_a_provider_identity_are_not_concerned(make_user, settings):
    settings.TOKEN_SSO_FRESHNESS_DAYS = 1
    alice = make_user("alice")
    secret = token_create(user=alice, name="bot").secret
    assert token_authenticate(secret) is not None


def test_the_last_client_address_is_kept_and_shown_to_the_owner_only(make_user):
    alice, bob = make_user("alice", "staff"), make_user("bob", "staff")
    secret = token_create(user=alice, name="chat bot").secret
    token_create(user=bob, name="bob bot")
    assert Client(REMOTE_ADDR="203.0.113.7").get("/api/v1/spaces", **bearer(secret)).status_code == 200
    token = PersonalToken.objects.get(user=alice)
    assert token.last_used_ip == "203.0.113.7" and token.last_used_at is not None
    # Another address within the minute is still recorded: the owner sees the latest one.
    Client(REMOTE_ADDR="2001:db8::1").get("/api/v1/spaces", **bearer(secret))
    token.refresh_from_db()
    assert token.last_used_ip == "2001:db8::1"
    client = Client()
    client.force_login(alice)
    page = client.get("/accounts/profile/").content.decode()
    assert "from 2001:db8::1" in page
    client.force_login(bob)
    assert "2001:db8::1" not in client.get("/accounts/profile/").content.decode()


def test_the_profile_page_tells_a_person_known_by_sso_when_tokens_stop(provider, settings):
    settings.TOKEN_SSO_FRESHNESS_DAYS = 14
    erin = provider.sign_in("sub-erin", "erin")
    client = Client(headers={"accept-language": "fr"})
    client.force_login(erin)
    assert "au moins une fois tous les 14 jours" in client.get("/accounts/profile/").content.decode()
