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


def test_without_a_map_provider_groups_are_handbook_groups(make_user, settings):
    settings.OIDC_GROUP_MAP = {}
    user = make_user("erin", "old")
    sync_groups(user, {"groups": "staff"})
    assert _names(user) == {"staff"}


def test_users_are_matched_by_username_claim_and_issuer_is_checked(make_user, settings):
    settings.OIDC_ISSUER = "https://idp.example.com"
    settings.OIDC_GROUP_MAP = {}
    backend = HandbookOIDCBackend()
    assert not backend.verify_claims({"iss": "https://evil.example.com", "preferred_username": "x"})
    assert backend.verify_claims({"iss": "https://idp.example.com", "preferred_username": "x"})
    existing = make_user("frank")
    assert list(backend.filter_users_by_claims({"preferred_username": "frank", "email": "other@x"})) == [existing]
    created = backend.create_user({"preferred_username": "gina", "email": "g@x", "groups": ["staff"]})
    assert created.username == "gina" and not created.has_usable_password() and _names(created) == {"staff"}


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
