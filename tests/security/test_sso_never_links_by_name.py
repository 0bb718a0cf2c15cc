"""A sign-in opens an existing account only through its stored identity (issuer, subject), never
through the username claim: not an account an admin unlinked, not one whose password was made
unusable to switch it off, not one single sign-on made before identities were stored. An admin
gives such an account back to its provider account with ``link_sso``."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from accounts.models import SSOIdentity
from tests.api.test_sso_signin import ISSUER, Provider, configure_provider

pytestmark = pytest.mark.django_db


@pytest.fixture
def provider(settings) -> Provider:  # type: ignore[no-untyped-def]
    provider = configure_provider(settings)
    settings.OIDC_GROUP_MAP = {"idp-staff": ["staff"], "idp-hr": ["hr"]}
    return provider


def _link_sso(*args: str) -> str:
    out = StringIO()
    call_command("link_sso", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def _groups(user: User) -> set[str]:
    return set(user.groups.values_list("name", flat=True))


def test_an_unlinked_sso_account_is_not_taken_by_another_subject_with_its_name(provider):
    """GIVEN erin, made by single sign-on and in hr, whose link an admin removed
    WHEN another person at the provider, who calls themselves erin, signs in
    THEN they get an account of their own, without erin's groups, and erin stays unlinked."""
    erin = provider.sign_in("sub-erin", "erin", groups=("idp-staff", "idp-hr"))
    assert _groups(erin) == {"staff", "hr"}
    _link_sso("erin", "--issuer", ISSUER, "--subject", "sub-erin", "--unlink")

    someone = provider.sign_in("sub-mallory", "erin", groups=("idp-staff",))
    assert someone is not None and someone.pk != erin.pk and someone.username == "erin-2"
    assert "hr" not in _groups(someone)
    assert not erin.sso_identities.exists()
    assert _groups(User.objects.get(pk=erin.pk)) == {"staff", "hr"}  # erin's account is left as it was


@pytest.mark.parametrize("superuser", [False, True])
def test_an_account_switched_off_by_an_unusable_password_is_not_taken_by_name(provider, make_user, superuser):
    """A local account whose password was made unusable (a colleague who left) is nobody's to open."""
    frank = make_user("frank", "hr", superuser=superuser)
    frank.set_unusable_password()
    frank.save(update_fields=["password"])

    someone = provider.sign_in("sub-frank-lookalike", "frank")
    assert someone is not None and someone.pk != frank.pk and someone.username == "frank-2"
    assert "hr" not in _groups(someone) and not someone.is_superuser
    assert not frank.sso_identities.exists()


def test_an_account_made_by_sso_before_identities_were_stored_is_not_taken_by_name(provider):
    """Even the accounts the old by-name linking was meant for: a name proves nothing about who
    signs in, so an admin links them (``link_sso``)."""
    legacy = User.objects.create_user(username="gail")
    legacy.set_unusable_password()
    legacy.save(update_fields=["password"])

    assert provider.sign_in("sub-gail", "gail").pk != legacy.pk
    assert not legacy.sso_identities.exists()


def test_an_admin_gives_the_account_back_to_its_provider_account(provider):
    """The re-link the final reply documents: the person signed in meanwhile and got erin-2; the
    admin moves their identity back to erin (unlink it from erin-2, link it to erin)."""
    erin = provider.sign_in("sub-erin", "erin", groups=("idp-staff", "idp-hr"))
    _link_sso("erin", "--issuer", ISSUER, "--subject", "sub-erin", "--unlink")
    stray = provider.sign_in("sub-erin", "erin", groups=("idp-staff", "idp-hr"))
    assert stray.pk != erin.pk and stray.username == "erin-2"

    with pytest.raises(CommandError, match="already signs in as 'erin-2'"):
        _link_sso("erin", "--issuer", ISSUER, "--subject", "sub-erin")
    _link_sso("erin-2", "--issuer", ISSUER, "--subject", "sub-erin", "--unlink")
    assert "linked" in _link_sso("erin", "--issuer", ISSUER, "--subject", "sub-erin")

    assert provider.sign_in("sub-erin", "erin", groups=("idp-staff", "idp-hr")).pk == erin.pk
    assert SSOIdentity.objects.get(issuer=ISSUER, subject="sub-erin").user_id == erin.pk
