"""An admin links an account to a provider account (command and admin), and the settings single
sign-on refuses to start with."""

from __future__ import annotations

import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from accounts.models import SSOIdentity
from tests.api.test_sso_signin import ISSUER, Provider, configure_provider

pytestmark = pytest.mark.django_db


@pytest.fixture
def provider(settings) -> Provider:  # type: ignore[no-untyped-def]
    return configure_provider(settings)


ROOT = Path(__file__).resolve().parents[2]


def _link(*args: str) -> str:
    out = StringIO()
    call_command("link_sso", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_link_sso_gives_a_local_account_to_a_provider_account_and_unlinks_it(provider, make_user):
    carol = make_user("carol", "board")
    assert "linked" in _link("carol", "--issuer", ISSUER, "--subject", "sub-carol")
    assert provider.sign_in("sub-carol", "carol").pk == carol.pk
    assert "no longer linked" in _link("carol", "--issuer", ISSUER, "--subject", "sub-carol", "--unlink")
    assert not SSOIdentity.objects.exists()
    assert provider.sign_in("sub-carol", "carol").pk != carol.pk  # a password account again: a new person


def test_link_sso_refuses_a_taken_identity_a_second_subject_and_unknown_people(make_user):
    make_user("carol"), make_user("dave")
    _link("carol", "--issuer", ISSUER, "--subject", "s-1")
    for args, message in (
        (("dave", "--issuer", ISSUER, "--subject", "s-1"), "already signs in as 'carol'"),
        (("carol", "--issuer", ISSUER, "--subject", "s-2"), "another subject"),
        (("nobody", "--issuer", ISSUER, "--subject", "s-3"), "no such user"),
        (("dave", "--issuer", ISSUER, "--subject", "s-1", "--unlink"), "not linked"),
        (("dave", "--issuer", " ", "--subject", "s-4"), "issuer and the subject"),
    ):
        with pytest.raises(CommandError, match=message):
            _link(*args)
    assert SSOIdentity.objects.get().user.username == "carol"


def test_an_admin_adds_and_removes_a_link_in_the_admin(make_user):
    root, carol = make_user("root", superuser=True), make_user("carol")
    client = Client()
    client.force_login(root)
    assert client.get("/admin/accounts/ssoidentity/").status_code == 200
    response = client.post(
        "/admin/accounts/ssoidentity/add/", {"user": carol.pk, "issuer": ISSUER, "subject": "s-carol"}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    identity = SSOIdentity.objects.get(user=carol)
    response = client.post(f"/admin/accounts/ssoidentity/{identity.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302 and not SSOIdentity.objects.exists()


def _start(**env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("OIDC_")}
    environ.update(
        OIDC_CLIENT_ID="handbook",
        OIDC_CLIENT_SECRET="secret",
        OIDC_AUTHORIZATION_ENDPOINT="https://idp.example.com/auth",
        OIDC_TOKEN_ENDPOINT="https://idp.example.com/token",
        OIDC_USERINFO_ENDPOINT="https://idp.example.com/userinfo",
        OIDC_JWKS_ENDPOINT="https://idp.example.com/certs",
        DJANGO_SETTINGS_MODULE="config.settings",
    )
    environ.update(env)
    code = "import config.settings; print('started')"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environ, capture_output=True, text=True, timeout=120
    )


def test_single_sign_on_needs_an_issuer_and_an_explicit_group_mapping_to_start():
    """One start per set-up: no issuer, groups synchronised without a map or prefix, then good ones."""
    no_issuer = _start(OIDC_GROUP_MAP="idp-staff=staff")
    assert no_issuer.returncode != 0 and "OIDC_ISSUER must be set" in no_issuer.stderr
    no_map = _start(OIDC_ISSUER="https://idp.example.com")
    assert no_map.returncode != 0 and "OIDC_GROUP_MAP" in no_map.stderr and "Single sign-on" in no_map.stderr
    for good in ({"OIDC_GROUP_MAP": "idp-staff=staff"}, {"OIDC_GROUP_PREFIX": "handbook-"}, {"OIDC_SYNC_GROUPS": "0"}):
        started = _start(OIDC_ISSUER="https://idp.example.com", **good)
        assert started.returncode == 0 and "started" in started.stdout, (good, started.stderr[-2000:])
