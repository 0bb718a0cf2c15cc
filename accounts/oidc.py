"""Sign-in with the company's OpenID Connect provider (mozilla-django-oidc, authorization code + PKCE).

A person is their provider account: the ID token's issuer and subject, checked
here (issuer, audience, authorised party, required claims) on top of the
library's signature and nonce checks. The username claim only names a new
account (``accounts.identities``).

At every sign-in the person's handbook groups follow the provider's groups
claim: groups the mapping manages are added and removed to match it, so a person
removed from a group at the provider loses that access at their next sign-in
(and, at the latest, when their session expires: SESSION_COOKIE_AGE). Groups
the mapping does not manage (granted by hand in the admin) are left alone.
"""

from __future__ import annotations

import logging
from typing import Any

import jwt
import requests
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import SuspiciousOperation
from django.db import transaction
from mozilla_django_oidc.auth import OIDCAuthenticationBackend

from accounts.backends import LocalBackend
from accounts.identities import create_sso_account, record_refusal, record_sign_in, sign_in_account
from accounts.selectors import user_by_id

logger = logging.getLogger(__name__)
# Seconds the provider's clock may be ahead of ours (iat, nbf) or an expiry behind.
CLOCK_LEEWAY_S = 30


def provider_groups(claims: dict[str, Any]) -> set[str]:
    value = claims.get(settings.OIDC_GROUPS_CLAIM, [])
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return set()
    return {str(item) for item in value}


def _prefixed(names: set[str]) -> set[str]:
    prefix = settings.OIDC_GROUP_PREFIX
    return {name for name in names if prefix and name.startswith(prefix)}


def sync_groups(user: Any, claims: dict[str, Any]) -> None:
    """Make the user's managed handbook groups, staff and superuser flags follow the claims.

    Managed groups are the targets of OIDC_GROUP_MAP and the groups named with
    OIDC_GROUP_PREFIX (provider groups with that prefix are taken as they are); only
    those are added or removed. A provider group outside both names nothing: the
    provider cannot put anyone in a handbook group the handbook did not hand it.
    """
    if not settings.OIDC_SYNC_GROUPS:  # a provider without groups (Google): groups are kept in the admin
        return
    theirs = provider_groups(claims)
    mapping: dict[str, list[str]] = settings.OIDC_GROUP_MAP
    wanted = {name for group in theirs for name in mapping.get(group, [])} | _prefixed(theirs)
    with transaction.atomic():
        current = set(user.groups.values_list("name", flat=True))
        managed = {name for names in mapping.values() for name in names} | _prefixed(current)
        to_remove = (current & managed) - wanted
        to_add = wanted - current
        if to_remove:
            user.groups.remove(*Group.objects.filter(name__in=to_remove))
        if to_add:
            user.groups.add(*(Group.objects.get_or_create(name=name)[0] for name in sorted(to_add)))
        changed: list[str] = []
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


def _same_issuer(issuer: Any) -> bool:
    # OIDC_ISSUER is kept without a trailing slash (settings): compare both that way.
    return bool(settings.OIDC_ISSUER) and isinstance(issuer, str) and issuer.rstrip("/") == settings.OIDC_ISSUER


def check_id_token(payload: dict[str, Any]) -> None:
    """The checks of OpenID Connect Core 3.1.3.7 that mozilla-django-oidc leaves to us.

    Signature, algorithm and nonce are checked by the library, and ``exp``, ``nbf`` and a
    future ``iat`` by PyJWT when present (``_verify_jws``); here every required claim must be
    present, the issuer be ours, the audience include us and, when several parties are named,
    the authorised party (``azp``) be us.
    """
    missing = [name for name in ("iss", "sub", "aud", "exp", "iat") if payload.get(name) in (None, "")]
    if missing:
        raise SuspiciousOperation(f"ID token without {', '.join(missing)}")
    if not _same_issuer(payload["iss"]):
        raise SuspiciousOperation(f"ID token from issuer {payload['iss']!r}, not OIDC_ISSUER")
    audience = payload["aud"]
    audiences = [audience] if isinstance(audience, str) else audience if isinstance(audience, list) else []
    client_id = settings.OIDC_RP_CLIENT_ID
    if client_id not in audiences:
        raise SuspiciousOperation("ID token not meant for this client (aud)")
    azp = payload.get("azp")
    if azp is not None and azp != client_id:
        raise SuspiciousOperation("ID token authorised for another client (azp)")
    if len(audiences) > 1 and azp is None:
        raise SuspiciousOperation("ID token for several audiences without azp")


class HandbookOIDCBackend(OIDCAuthenticationBackend):
    """People are their provider account (``iss``, ``sub`` of the ID token), never a name or an e-mail.

    The library's flow is kept: ``get_or_create_user`` reads the claims (``get_userinfo``),
    checks them (``verify_claims``), looks the person up (``filter_users_by_claims``) and then
    updates (``update_user``) or creates (``create_user``) them. The username claim only names
    a new account (``accounts.identities``).
    """

    def _verify_jws(self, payload: str, key: Any) -> dict[str, Any]:
        # The library's own check (mozilla-django-oidc 5.0), with a little leeway for the
        # provider's clock, and with every PyJWT refusal a refused sign-in: the library turns
        # only DecodeError into one, so an expired or future token used to end in a 500.
        try:
            algorithm = jwt.get_unverified_header(payload).get("alg")
            if algorithm != self.OIDC_RP_SIGN_ALGO:
                raise SuspiciousOperation(f"token algorithm {algorithm!r} is not OIDC_RP_SIGN_ALGO")
            return jwt.decode(
                payload, key, algorithms=[self.OIDC_RP_SIGN_ALGO], leeway=CLOCK_LEEWAY_S, options={"verify_aud": False}
            )
        except jwt.InvalidTokenError as exc:
            raise SuspiciousOperation(f"token refused: {exc}") from None

    def get_or_create_user(self, access_token: str, id_token: str, payload: dict[str, Any]) -> Any:
        check_id_token(payload)
        try:
            return super().get_or_create_user(access_token, id_token, payload)
        except SuspiciousOperation as exc:
            # The provider vouched for this account and we still refused: if it is someone we
            # know, their tokens stop until a sign-in succeeds and their browser sessions end.
            if record_refusal(issuer=payload["iss"], subject=str(payload["sub"]), reason=str(exc)) is not None:
                self._drop_ended_session()
            raise

    def _drop_ended_session(self) -> None:
        # The request may come from one of the browsers just signed out: its session row is gone,
        # and a session the sign-in wrote to (OIDC_STORE_ID_TOKEN) would fail to save on the
        # missing row (a 400 instead of the failure page). Start it afresh, empty, instead.
        session = getattr(getattr(self, "request", None), "session", None)
        if session is not None and session.session_key and not session.exists(session.session_key):
            session.flush()

    def get_user(self, user_id: Any) -> Any:
        # The library's (any account the id names; deactivated ones read nothing, core/users.py),
        # read in one prepared statement.
        return user_by_id(user_id)

    def get_userinfo(self, access_token: str, id_token: str, payload: dict[str, Any]) -> dict[str, Any]:
        """The ID token's claims completed by the userinfo endpoint (Entra ID puts groups in the ID
        token, Keycloak in both); who the person is (iss, sub, the username) comes from the ID token."""
        userinfo = super().get_userinfo(access_token, id_token, payload)
        if str(userinfo.get("sub", "")) != str(payload["sub"]):
            raise SuspiciousOperation("userinfo is about another subject than the ID token")
        claims = {**payload, **userinfo}
        identity = ("iss", "sub", settings.OIDC_USERNAME_CLAIM)
        claims.update({name: payload[name] for name in identity if name in payload})
        return claims

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        if not _same_issuer(claims.get("iss")):
            logger.warning("sign-in refused: issuer %r is not OIDC_ISSUER", claims.get("iss"))
            return False
        return bool(claims.get("sub")) and bool(self._username(claims))

    def _username(self, claims: dict[str, Any]) -> str:
        value = claims.get(settings.OIDC_USERNAME_CLAIM) or claims.get("sub") or ""
        return str(value)[:150]

    def filter_users_by_claims(self, claims: dict[str, Any]) -> Any:
        """The account of this provider account; none for a new person (the caller then creates one)."""
        user = sign_in_account(issuer=claims["iss"], subject=str(claims["sub"]))
        return self.UserModel.objects.filter(pk=user.pk) if user is not None else self.UserModel.objects.none()

    def create_user(self, claims: dict[str, Any]) -> Any:
        user = create_sso_account(
            issuer=claims["iss"],
            subject=str(claims["sub"]),
            username=self._username(claims),
            email=claims.get("email", "") or "",
        )
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
        record_sign_in(issuer=claims["iss"], subject=str(claims["sub"]))
        return user

    def authenticate(self, request: Any, **kwargs: Any) -> Any:
        if not settings.OIDC_ENABLED:
            return None
        try:
            return super().authenticate(request, **kwargs)
        except (SuspiciousOperation, jwt.InvalidTokenError) as exc:
            logger.warning("sign-in refused: %s", exc)
            return None
        except requests.RequestException as exc:  # the provider refused the code, or did not answer
            logger.warning("sign-in failed at the provider: %s", exc)
            return None


class PermissionsOnlyBackend(LocalBackend):
    """Model permissions for the admin, without password sign-in (LOCAL_LOGIN_ENABLED=false)."""

    def authenticate(self, request: Any, username: str | None = None, password: str | None = None, **kw: Any) -> None:
        return None
