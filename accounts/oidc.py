"""Sign-in with the company's OpenID Connect provider (mozilla-django-oidc, authorization code + PKCE).

At every sign-in the person's handbook groups follow the provider's groups
claim: groups the mapping manages are added and removed to match it, so a person
removed from a group at the provider loses that access at their next sign-in
(and, at the latest, when their session expires: SESSION_COOKIE_AGE). Groups
the mapping does not manage (granted by hand in the admin) are left alone.
"""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.models import Group
from django.core.exceptions import SuspiciousOperation
from django.db import transaction
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

logger = logging.getLogger(__name__)


def provider_groups(claims: dict[str, Any]) -> set[str]:
    value = claims.get(settings.OIDC_GROUPS_CLAIM, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return set()
    return {str(item) for item in value}


def sync_groups(user: Any, claims: dict[str, Any]) -> None:
    """Make the user's managed handbook groups, staff and superuser flags follow the claims."""
    if not settings.OIDC_SYNC_GROUPS:  # a provider without groups (Google): groups are kept in the admin
        return
    theirs = provider_groups(claims)
    mapping: dict[str, list[str]] = settings.OIDC_GROUP_MAP
    if mapping:
        managed = {name for names in mapping.values() for name in names}
        wanted = {name for group in theirs for name in mapping.get(group, [])}
    else:  # no mapping: provider groups are handbook groups of the same name, and all of them are managed
        managed = None
        wanted = theirs
    with transaction.atomic():
        current = set(user.groups.values_list("name", flat=True))
        removable = current if managed is None else current & managed
        to_remove = removable - wanted
        to_add = wanted - current
        if to_remove:
            user.groups.remove(*Group.objects.filter(name__in=to_remove))
        if to_add:
            user.groups.add(*(Group.objects.get_or_create(name=name)[0] for name in sorted(to_add)))
        changed = []
        if settings.OIDC_STAFF_GROUPS:
            staff = bool(theirs & set(settings.OIDC_STAFF_GROUPS))
            if user.is_staff != staff:
                user.is_staff, changed = staff, [*changed, "is_staff"]
        if settings.OIDC_SUPERUSER_GROUPS:
            superuser = bool(theirs & set(settings.OIDC_SUPERUSER_GROUPS))
            if user.is_superuser != superuser:
                user.is_superuser, changed = superuser, [*changed, "is_superuser"]
        if changed:
            user.save(update_fields=changed)
    if to_add or to_remove:
        logger.info("sign-in %s: groups +%s -%s", user.username, sorted(to_add), sorted(to_remove))


class HandbookOIDCBackend(OIDCAuthenticationBackend):
    """People are matched by the provider's username claim (never by e-mail, which can be reassigned)."""

    def get_userinfo(self, access_token: str, id_token: str, payload: dict[str, Any]) -> dict[str, Any]:
        # The verified ID token's claims, completed by the userinfo endpoint (Entra ID puts groups in
        # the ID token, Keycloak in both).
        claims = dict(payload)
        claims.update(super().get_userinfo(access_token, id_token, payload))
        return claims

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        if settings.OIDC_ISSUER and claims.get("iss") not in (None, settings.OIDC_ISSUER):
            logger.warning("sign-in refused: issuer %r is not OIDC_ISSUER", claims.get("iss"))
            return False
        return bool(self._username(claims))

    def _username(self, claims: dict[str, Any]) -> str:
        value = claims.get(settings.OIDC_USERNAME_CLAIM) or claims.get("sub") or ""
        return str(value)[:150]

    def filter_users_by_claims(self, claims: dict[str, Any]) -> Any:
        return self.UserModel.objects.filter(username=self._username(claims))

    def create_user(self, claims: dict[str, Any]) -> Any:
        user = self.UserModel.objects.create_user(username=self._username(claims), email=claims.get("email", ""))
        user.set_unusable_password()
        return self.update_user(user, claims)

    def update_user(self, user: Any, claims: dict[str, Any]) -> Any:
        fields = {
            "email": claims.get("email", user.email) or "",
            "first_name": (claims.get("given_name") or user.first_name or "")[:150],
            "last_name": (claims.get("family_name") or user.last_name or "")[:150],
        }
        for name, value in fields.items():
            setattr(user, name, value)
        user.save()
        sync_groups(user, claims)
        return user

    def authenticate(self, request: Any, **kwargs: Any) -> Any:
        if not settings.OIDC_ENABLED:
            return None
        try:
            return super().authenticate(request, **kwargs)
        except SuspiciousOperation as exc:
            logger.warning("sign-in refused: %s", exc)
            return None


class PermissionsOnlyBackend(ModelBackend):
    """Model permissions for the admin, without password sign-in (LOCAL_LOGIN_ENABLED=false)."""

    def authenticate(self, request: Any, username: str | None = None, password: str | None = None, **kw: Any) -> None:
        return None
