"""Create, revoke and check personal access tokens."""

from __future__ import annotations

import hashlib
import ipaddress
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from accounts.models import PersonalToken
from accounts.selectors import live_token_count, sso_allows_tokens

TOKEN_PREFIX = "hbk_"  # noqa: S105 - a marker, not a secret
DEFAULT_DAYS = 90
MAX_DAYS = 366
# last_used_at is a hint for the owner, not an audit log: write it at most this often.
LAST_USED_RESOLUTION = timedelta(minutes=1)


class TokenError(ValueError):
    """The token cannot be created as asked; the message is for the user."""


@dataclass(frozen=True)
class NewToken:
    token: PersonalToken
    secret: str  # shown once, never stored


def hash_token(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def token_create(*, user: Any, name: str, scope: str = "read", days: int = DEFAULT_DAYS) -> NewToken:
    name = (name or "").strip()
    if not name:
        raise TokenError(gettext("Give the token a name."))
    if len(name) > 100:
        raise TokenError(gettext("The name is too long (100 characters at most)."))
    if scope not in PersonalToken.Scope.values:
        raise TokenError(gettext("Unknown scope %(scope)r: use read or ask.") % {"scope": scope})
    if not 1 <= days <= MAX_DAYS:
        raise TokenError(gettext("A token lasts between 1 and %(days)d days.") % {"days": MAX_DAYS})
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with transaction.atomic():
        # The owner's row is the lock: two creations at once cannot both take the last place.
        get_user_model().objects.select_for_update().filter(pk=user.pk).exists()
        now = timezone.now()
        most = settings.API_MAX_TOKENS_PER_PERSON
        if live_token_count(user=user, now=now) >= most:
            raise TokenError(
                ngettext(
                    "You already have %(count)d live token, the most allowed: revoke it first.",
                    "You already have %(count)d live tokens, the most allowed: revoke one you no longer use first.",
                    most,
                )
                % {"count": most}
            )
        token = PersonalToken.objects.create(
            user=user,
            name=name,
            scope=scope,
            token_hash=hash_token(secret),
            prefix=secret[: len(TOKEN_PREFIX) + 6],
            expires_at=now + timedelta(days=days),
        )
    return NewToken(token=token, secret=secret)


def token_revoke(*, user: Any, token_id: int) -> bool:
    """Revoke one of ``user``'s own tokens; False when they have no such live token."""
    return bool(
        PersonalToken.objects.filter(user=user, pk=token_id, revoked_at__isnull=True).update(revoked_at=timezone.now())
    )


def _ip(address: str | None) -> str | None:
    try:
        return str(ipaddress.ip_address((address or "").strip()))
    except ValueError:
        return None


def token_authenticate(secret: str, *, address: str | None = None) -> PersonalToken | None:
    """The live token for ``secret`` with its owner loaded fresh, or None.

    None for an unknown, revoked or expired token, for an inactive owner, and for an
    owner known by single sign-on who has not signed in through the provider lately or
    whose last sign-in was refused (``selectors.sso_allows_tokens``). The owner's groups
    are not cached here: every permission check reads them again. ``address``: the
    client's, kept as the token's last use.
    """
    if not secret or not secret.startswith(TOKEN_PREFIX) or len(secret) > 200:
        return None
    now = timezone.now()
    token = (
        PersonalToken.objects.select_related("user")
        .filter(token_hash=hash_token(secret), revoked_at__isnull=True, expires_at__gt=now)
        .first()
    )
    if token is None or not token.user.is_active or not sso_allows_tokens(user_id=token.user_id, now=now):
        return None
    address = _ip(address) or token.last_used_ip  # a caller that knows no address keeps the last one
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION or address != token.last_used_ip:
        PersonalToken.objects.filter(pk=token.pk).update(last_used_at=now, last_used_ip=address)
        token.last_used_at, token.last_used_ip = now, address
    return token
