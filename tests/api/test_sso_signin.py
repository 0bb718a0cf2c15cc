"""Single sign-on: who a sign-in opens, and which ID tokens are refused.

A provider in the test process signs ID tokens with its own RSA key; the backend
gets them through its real code path (``authenticate``: token exchange, signature,
nonce, claims, userinfo), with only the two HTTP calls to the provider replaced.
"""

from __future__ import annotations

import time
from typing import Any
from unittest.mock import Mock, patch

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.contrib.auth.models import User
from django.contrib.sessions.backends.db import SessionStore
from django.test import RequestFactory

from accounts.models import SSOIdentity
from accounts.oidc import HandbookOIDCBackend

pytestmark = pytest.mark.django_db

ISSUER, CLIENT_ID, NONCE = "https://idp.example.com/realms/company", "handbook", "nonce-1"
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
OTHER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
PUBLIC_PEM = (
    KEY.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
)


class Provider:
    """Signs ID tokens and answers userinfo like an OpenID Connect provider would."""

    def id_token(self, subject: str, username: str, **changes: Any) -> dict[str, Any]:
        now = int(time.time())
        claims = {
            "iss": ISSUER,
            "sub": subject,
            "aud": CLIENT_ID,
            "exp": now + 300,
            "iat": now,
            "nonce": NONCE,
            "preferred_username": username,
            "email": f"{username}@example.com",
        }
        claims.update(changes)
        return {name: value for name, value in claims.items() if value is not None}

    def sign_in(
        self,
        subject: str,
        username: str | None = None,
        *,
        groups: tuple[str, ...] = ("idp-staff",),
        userinfo: dict[str, Any] | None = None,
        key: Any = KEY,
        algorithm: str = "RS256",
        **changes: Any,
    ) -> Any:
        """The account the backend signs this provider account in as, or None when refused."""
        username = username or subject
        claims = self.id_token(subject, username, **changes)
        token = jwt.encode(claims, key, algorithm=algorithm)
        info = {"sub": subject, "preferred_username": username, "groups": list(groups), **(userinfo or {})}
        response = Mock(headers={"content-type": "application/json"}, json=Mock(return_value=info))
        request = RequestFactory().get("/oidc/callback/", {"code": "code-1", "state": "state-1"})
        request.session = SessionStore()
        with (
            patch.object(HandbookOIDCBackend, "get_token", return_value={"id_token": token, "access_token": "at"}),
            patch("mozilla_django_oidc.auth.requests.get", return_value=response),
        ):
            return HandbookOIDCBackend().authenticate(request, nonce=NONCE, code_verifier="verifier")


def configure_provider(settings: Any) -> Provider:
    """Point the handbook's settings (pytest-django's ``settings``) at the test provider."""
    settings.OIDC_ENABLED = True
    settings.OIDC_RP_CLIENT_ID, settings.OIDC_RP_CLIENT_SECRET = CLIENT_ID, "client-secret"
    settings.OIDC_ISSUER = ISSUER
    settings.OIDC_OP_TOKEN_ENDPOINT = f"{ISSUER}/token"
    settings.OIDC_OP_USER_ENDPOINT = f"{ISSUER}/userinfo"
    settings.OIDC_OP_JWKS_ENDPOINT = None
    settings.OIDC_RP_IDP_SIGN_KEY = PUBLIC_PEM
    settings.OIDC_RP_SIGN_ALGO = "RS256"
    settings.OIDC_USERNAME_CLAIM = "preferred_username"
    settings.OIDC_SYNC_GROUPS = True
    settings.OIDC_GROUP_MAP = {"idp-staff": ["staff"]}
    settings.OIDC_GROUP_PREFIX = ""
    settings.OIDC_STAFF_GROUPS, settings.OIDC_SUPERUSER_GROUPS = [], []
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return Provider()


@pytest.fixture
def provider(settings) -> Provider:  # type: ignore[no-untyped-def]
    return configure_provider(settings)


def _sso_account(username: str, **flags: Any) -> User:
    """An account as single sign-on made them before identities were stored: no usable password."""
    user = User.objects.create_user(username=username, **flags)
    user.set_unusable_password()
    user.save()
    return user


# --- A: people are (issuer, subject) ----------------------------------------------------


def test_a_first_sign_in_makes_an_account_and_the_identity_opens_it_again(provider):
    user = provider.sign_in("sub-1", "erin")
    assert user.username == "erin" and not user.has_usable_password()
    assert set(user.groups.values_list("name", flat=True)) == {"staff"}
    identity = SSOIdentity.objects.get()
    assert (identity.user, identity.issuer, identity.subject) == (user, ISSUER, "sub-1")
    assert identity.last_login_at is not None
    # Renamed at the provider: the same person, the same account.
    assert provider.sign_in("sub-1", "erin.new").pk == user.pk
    assert User.objects.count() == 1


def test_a_username_never_opens_a_local_account(provider, make_user):
    local = make_user("carol", "board")  # a password account, made in the handbook
    user = provider.sign_in("sub-2", "carol")
    assert user.pk != local.pk and user.username == "carol-2"
    assert not local.sso_identities.exists() and SSOIdentity.objects.get().user == user
    assert "board" not in user.groups.values_list("name", flat=True)


def test_a_username_never_opens_another_providers_account_or_someone_elses(provider):
    first = provider.sign_in("sub-3", "dave")
    # Another person at the same provider who now calls themselves dave.
    second = provider.sign_in("sub-4", "dave")
    assert second.pk != first.pk and second.username == "dave-2"
    # An account known by another provider is not moved by a name either.
    other = _sso_account("olga")
    SSOIdentity.objects.create(user=other, issuer="https://other-idp.example.com", subject="o-1")
    assert provider.sign_in("sub-5", "olga").pk != other.pk


def test_a_superuser_is_never_opened_by_a_username(provider):
    root = _sso_account("root", is_superuser=True, is_staff=True)
    user = provider.sign_in("sub-6", "root")
    assert user.pk != root.pk and not user.is_superuser and user.username == "root-2"


def test_an_account_made_by_sso_before_identities_is_not_linked_by_its_name(provider):
    # No usable password and no identity is also an unlinked or switched-off account: a name proves
    # nothing, so an admin links such an account (link_sso) and a sign-in before that is someone new.
    legacy = _sso_account("frank")
    user = provider.sign_in("sub-7", "frank")
    assert user.pk != legacy.pk and user.username == "frank-2"
    assert not legacy.sso_identities.exists()
    SSOIdentity.objects.filter(user=user).delete()
    SSOIdentity.objects.create(user=legacy, issuer=ISSUER, subject="sub-7")  # what link_sso does
    assert provider.sign_in("sub-7", "frank").pk == legacy.pk


def test_a_linked_account_is_opened_even_with_a_password_or_as_superuser(provider, make_user):
    admin = make_user("root", superuser=True)
    SSOIdentity.objects.create(user=admin, issuer=ISSUER, subject="sub-9")
    assert provider.sign_in("sub-9", "someone-else").pk == admin.pk


# --- B: the ID token ---------------------------------------------------------------------


def test_a_well_formed_token_signs_in(provider):
    assert provider.sign_in("sub-10", "gina") is not None


@pytest.mark.parametrize(
    ("what", "changes"),
    [
        ("no issuer", {"iss": None}),
        ("another issuer", {"iss": "https://evil.example.com"}),
        ("no audience", {"aud": None}),
        ("another audience", {"aud": "another-client"}),
        ("several audiences, no azp", {"aud": [CLIENT_ID, "another-client"]}),
        ("several audiences, azp another", {"aud": [CLIENT_ID, "another-client"], "azp": "another-client"}),
        ("azp another", {"azp": "another-client"}),
        ("no exp", {"exp": None}),
        ("expired", {"exp": int(time.time()) - 3600}),
        ("no iat", {"iat": None}),
        ("issued in the future", {"iat": int(time.time()) + 3600}),
        ("not yet valid", {"nbf": int(time.time()) + 3600}),
        ("wrong nonce", {"nonce": "replayed"}),
        ("no sub", {"sub": None}),
    ],
)
def test_an_id_token_is_refused(provider, what, changes):
    assert provider.sign_in("sub-11", "hal", **changes) is None, what
    assert not User.objects.filter(username="hal").exists(), what


def test_several_audiences_with_azp_us_sign_in(provider):
    assert provider.sign_in("sub-12", "ivy", aud=[CLIENT_ID, "api"], azp=CLIENT_ID) is not None


def test_a_token_signed_by_another_key_or_algorithm_is_refused(provider):
    assert provider.sign_in("sub-13", "jack", key=OTHER_KEY) is None
    assert provider.sign_in("sub-13", "jack", key="shared-secret", algorithm="HS256") is None
    assert not User.objects.filter(username="jack").exists()


def test_identity_comes_from_the_id_token_and_userinfo_must_be_about_the_same_subject(provider):
    # userinfo may complete the claims (groups, e-mail) but not change who signs in.
    user = provider.sign_in("sub-14", "kim", userinfo={"preferred_username": "root", "iss": "https://evil"})
    assert user.username == "kim" and SSOIdentity.objects.get(user=user).issuer == ISSUER
    assert provider.sign_in("sub-14", "kim", userinfo={"sub": "sub-someone-else"}) is None
    assert provider.sign_in("sub-14", "kim", userinfo={"sub": None}) is None


def test_the_issuer_may_end_with_a_slash(provider, settings):
    settings.OIDC_ISSUER = "https://issuer.example.com"
    assert provider.sign_in("sub-15", "lea", iss="https://issuer.example.com/") is not None


def test_without_a_configured_issuer_nobody_signs_in(provider, settings):
    settings.OIDC_ISSUER = ""
    assert provider.sign_in("sub-16", "max") is None


def test_the_callback_view_answers_a_refused_token_with_the_failure_page(provider, client):
    """An expired ID token used to escape the library as a PyJWT error: a 500 for the person."""
    now = int(time.time())
    token = jwt.encode(provider.id_token("sub-17", "nia", exp=now - 60, iat=now - 600), KEY, algorithm="RS256")
    session = client.session
    session["oidc_states"] = {"state-1": {"nonce": NONCE, "code_verifier": "verifier", "added_on": time.time()}}
    session.save()
    with patch.object(HandbookOIDCBackend, "get_token", return_value={"id_token": token, "access_token": "at"}):
        response = client.get("/oidc/callback/", {"code": "code-1", "state": "state-1"})
    assert response.status_code == 302 and "sso=failed" in response["Location"]
