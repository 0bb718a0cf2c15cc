"""A sign-in the provider vouched for but the handbook refused ends the person's browser sessions,
as it stops their tokens: whatever made the handbook refuse them holds for the browser they
signed in with yesterday too."""

from __future__ import annotations

import time
from unittest.mock import Mock, patch

import jwt
import pytest
from django.test import Client

from accounts.models import SSOIdentity
from accounts.oidc import HandbookOIDCBackend
from tests.api.test_sso_signin import KEY, NONCE, Provider, configure_provider

pytestmark = pytest.mark.django_db

PAGE = "/accounts/profile/"  # any page that needs a signed-in person
BACKEND = "accounts.oidc.HandbookOIDCBackend"


@pytest.fixture
def provider(settings) -> Provider:  # type: ignore[no-untyped-def]
    return configure_provider(settings)


def _signed_in(user) -> Client:  # type: ignore[no-untyped-def]
    browser = Client()
    browser.force_login(user, backend=BACKEND)
    assert browser.get(PAGE).status_code == 200
    return browser


def _signed_out(browser: Client) -> bool:
    response = browser.get(PAGE)
    return response.status_code == 302 and "/login" in response["Location"]


def test_a_refused_sign_in_ends_the_person_s_open_browser_sessions(provider, make_user):
    """GIVEN erin signed in on two browsers, and bob on his
    WHEN a later sign-in of erin's provider account is refused (userinfo about someone else)
    THEN neither of erin's browsers is signed in any more; bob's still is."""
    erin = provider.sign_in("sub-erin", "erin")
    laptop, phone = _signed_in(erin), _signed_in(erin)
    bob = _signed_in(provider.sign_in("sub-bob", "bob"))

    assert provider.sign_in("sub-erin", "erin", userinfo={"sub": "sub-other"}) is None

    assert SSOIdentity.objects.get(user=erin).refused_at is not None
    assert _signed_out(laptop) and _signed_out(phone)
    assert bob.get(PAGE).status_code == 200


@pytest.mark.parametrize("store_id_token", [False, True])
def test_a_refused_sign_in_in_the_signed_in_browser_itself_signs_it_out_cleanly(provider, settings, store_id_token):
    """The refusal may come through the very browser that holds the session: the callback answers
    with the failure page (not an error about a session deleted under it, even when the sign-in
    wrote to it first: OIDC_STORE_ID_TOKEN) and signs it out."""
    settings.OIDC_STORE_ID_TOKEN = store_id_token
    erin = provider.sign_in("sub-erin", "erin")
    browser = _signed_in(erin)
    now = int(time.time())
    token = jwt.encode(provider.id_token("sub-erin", "erin", iat=now, exp=now + 300), KEY, algorithm="RS256")
    session = browser.session
    session["oidc_states"] = {"state-1": {"nonce": NONCE, "code_verifier": "verifier", "added_on": time.time()}}
    session.save()
    about_someone_else = Mock(
        headers={"content-type": "application/json"}, json=Mock(return_value={"sub": "sub-other"})
    )
    with (
        patch.object(HandbookOIDCBackend, "get_token", return_value={"id_token": token, "access_token": "at"}),
        patch("mozilla_django_oidc.auth.requests.get", return_value=about_someone_else),
    ):
        response = browser.get("/oidc/callback/", {"code": "code-1", "state": "state-1"})
    assert response.status_code == 302 and "sso=failed" in response["Location"]
    assert SSOIdentity.objects.get(user=erin).refused_at is not None
    assert _signed_out(browser)


def test_a_refusal_that_vouches_for_nobody_known_ends_nothing(provider):
    """A token meant for another client says nothing about erin: her session stays."""
    erin = provider.sign_in("sub-erin", "erin")
    browser = _signed_in(erin)
    assert provider.sign_in("sub-erin", "erin", aud="another-client") is None
    assert browser.get(PAGE).status_code == 200
