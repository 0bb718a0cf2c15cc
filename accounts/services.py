"""Create, revoke and check personal access tokens."""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.utils import timezone

from accounts.models import PersonalToken

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
        raise TokenError("Give the token a name.")
    if len(name) > 100:
        raise TokenError("The name is too long (100 characters at most).")
    if scope not in PersonalToken.Scope.values:
        raise TokenError(f"Unknown scope {scope!r}: use read or ask.")
    if not 1 <= days <= MAX_DAYS:
        raise TokenError(f"A token lasts between 1 and {MAX_DAYS} days.")
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = PersonalToken.objects.create(
        user=user,
        name=name,
        scope=scope,
        token_hash=hash_token(secret),
        prefix=secret[: len(TOKEN_PREFIX) + 6],
        expires_at=timezone.now() + timedelta(days=days),
    )
    return NewToken(token=token, secret=secret)


def token_revoke(*, user: Any, token_id: int) -> bool:
    """Revoke one of ``user``'s own tokens; False when they have no such live token."""
    return bool(
        PersonalToken.objects.filter(user=user, pk=token_id, revoked_at__isnull=True).update(revoked_at=timezone.now())
    )


def token_authenticate(secret: str) -> PersonalToken | None:
    """The live token for ``secret`` with its owner loaded fresh, or None.

    None for an unknown, revoked or expired token and for an inactive owner. The
    owner's groups are not cached here: every permission check reads them again.
    """
    if not secret or not secret.startswith(TOKEN_PREFIX) or len(secret) > 200:
        return None
    now = timezone.now()
    token = (
        PersonalToken.objects.select_related("user")
        .filter(token_hash=hash_token(secret), revoked_at__isnull=True, expires_at__gt=now)
        .first()
    )
    if token is None or not token.user.is_active:
        return None
    if token.last_used_at is None or now - token.last_used_at > LAST_USED_RESOLUTION:
        PersonalToken.objects.filter(pk=token.pk).update(last_used_at=now)
        token.last_used_at = now
    return token
