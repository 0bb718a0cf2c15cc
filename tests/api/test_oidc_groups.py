"""Group synchronisation at sign-in: the provider's groups claim decides the managed groups."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from accounts.config import parse_group_map
from accounts.oidc import HandbookOIDCBackend, sync_groups

pytestmark = pytest.mark.django_db


def _names(user) -> set[str]:  # type: ignore[no-untyped-def]
    return set(user.groups.values_list("name", flat=True))


def test_mapped_groups_are_added_and_removed_and_local_ones_kept(make_user, settings):
    settings.OIDC_GROUP_MAP = {"idp-hr": ["staff", "hr-editors"], "idp-pay": ["payroll"]}
    settings.OIDC_STAFF_GROUPS, settings.OIDC_SUPERUSER_GROUPS = ["idp-admins"], ["idp-root"]
    user = make_user("dana", "payroll", "local-only")
    sync_groups(user, {"groups": ["idp-hr", "idp-admins", "unmapped"]})
    assert _names(user) == {"staff", "hr-editors", "local-only"}
    assert user.is_staff and not user.is_superuser
    sync_groups(user, {"groups": ["idp-pay", "idp-root"]})
    user.refresh_from_db()
    assert _names(user) == {"payroll", "local-only"} and user.is_superuser and not user.is_staff
    sync_groups(user, {})
    assert _names(user) == {"local-only"}


def test_without_a_map_or_prefix_provider_groups_name_no_handbook_group(make_user, settings):
    """A provider group is never taken as the handbook group of the same name unless the handbook said so."""
    settings.OIDC_GROUP_MAP, settings.OIDC_GROUP_PREFIX = {}, ""
    user = make_user("erin", "old", "board")
    sync_groups(user, {"groups": ["staff", "payroll", "board"]})
    assert _names(user) == {"old", "board"}
    sync_groups(user, {"groups": []})
    assert _names(user) == {"old", "board"}


def test_a_prefix_takes_only_provider_groups_named_with_it_and_manages_only_those(make_user, settings):
    settings.OIDC_GROUP_MAP, settings.OIDC_GROUP_PREFIX = {}, "handbook-"
    user = make_user("erin", "board", "handbook-old")
    sync_groups(user, {"groups": ["handbook-hr", "handbook-it", "payroll", "board-x"]})
    assert _names(user) == {"board", "handbook-hr", "handbook-it"}
    sync_groups(user, {"groups": ["handbook-hr"]})
    assert _names(user) == {"board", "handbook-hr"}
    # With a map too: both are managed, nothing else is touched.
    settings.OIDC_GROUP_MAP = {"idp-pay": ["payroll"]}
    sync_groups(user, {"groups": ["idp-pay", "handbook-it"]})
    assert _names(user) == {"board", "payroll", "handbook-it"}


def test_users_are_matched_by_identity_and_issuer_is_checked(make_user, settings):
    settings.OIDC_ISSUER = "https://idp.example.com"
    settings.OIDC_GROUP_MAP = {"idp-staff": ["staff"]}
    backend = HandbookOIDCBackend()
    assert not backend.verify_claims({"iss": "https://evil.example.com", "sub": "1", "preferred_username": "x"})
    assert not backend.verify_claims({"sub": "1", "preferred_username": "x"})
    assert not backend.verify_claims({"iss": "https://idp.example.com", "preferred_username": "x"})
    assert backend.verify_claims({"iss": "https://idp.example.com", "sub": "1", "preferred_username": "x"})
    make_user("frank")  # a local account: a username claim never opens it
    claims = {"iss": "https://idp.example.com", "sub": "s-frank", "preferred_username": "frank", "email": "f@x"}
    assert list(backend.filter_users_by_claims(claims)) == []
    created = backend.create_user(
        {"iss": "https://idp.example.com", "sub": "s-gina", "preferred_username": "gina", "groups": ["idp-staff"]}
    )
    assert created.username == "gina" and not created.has_usable_password() and _names(created) == {"staff"}
    again = {"iss": "https://idp.example.com", "sub": "s-gina", "preferred_username": "renamed"}
    assert list(backend.filter_users_by_claims(again)) == [created]


def test_group_map_parsing():
    assert parse_group_map(" idp-hr=staff|hr-editors , idp-pay=payroll") == {
        "idp-hr": ["staff", "hr-editors"],
        "idp-pay": ["payroll"],
    }
    assert parse_group_map("") == {}
    for bad in ("idp-hr", "=staff", "idp-hr="):
        with pytest.raises(ImproperlyConfigured):
            parse_group_map(bad)


def test_group_sync_can_be_switched_off_for_providers_without_groups(make_user, settings):
    settings.OIDC_SYNC_GROUPS = False
    user = make_user("hal", "staff")
    sync_groups(user, {})
    assert _names(user) == {"staff"}
