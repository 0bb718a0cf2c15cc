"""Writes for single sign-on identities: sign-in, links an admin makes, refused sign-ins.

A person is their provider account, (issuer, subject). The username claim only
names a new account; it never opens an existing one. A name proves nothing about
who signs in: an account an admin unlinked, or switched off with an unusable
password, would go to whoever the provider lets take that name next. Only an
identity stored by a first sign-in or by an admin (``link``) opens an account.
"""

from __future__ import annotations

import logging
import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import SSOIdentity
from accounts.selectors import identity_for
from accounts.sessions import sessions_end

logger = logging.getLogger(__name__)
USERNAME_MAX = 150


class IdentityError(ValueError):
    """The link cannot be made or removed as asked; the message says why."""


def sign_in_account(*, issuer: str, subject: str) -> Any | None:
    """The account this provider account is linked to; None: a new person (never one found by name)."""
    identity = identity_for(issuer=issuer, subject=subject)
    return identity.user if identity is not None else None


def free_username(wanted: str) -> str:
    """``wanted`` if nobody has it, else ``wanted-2``, ``wanted-3``… (150 characters at most)."""
    users = get_user_model().objects
    base = (wanted or "user")[:USERNAME_MAX]
    if not users.filter(username=base).exists():
        return base
    for number in range(2, 1000):
        suffix = f"-{number}"
        candidate = base[: USERNAME_MAX - len(suffix)] + suffix
        if not users.filter(username=candidate).exists():
            return candidate
    suffix = "-" + secrets.token_hex(4)
    return base[: USERNAME_MAX - len(suffix)] + suffix


def create_sso_account(*, issuer: str, subject: str, username: str, email: str) -> Any:
    """A new account, named after ``username`` (or a free variant of it), for this provider account."""
    for _attempt in range(3):
        try:
            with transaction.atomic():
                user = get_user_model().objects.create_user(username=free_username(username), email=email)
                user.set_unusable_password()
                user.save(update_fields=["password"])
                SSOIdentity.objects.create(user=user, issuer=issuer, subject=subject)
                return user
        except IntegrityError:  # the name was taken meanwhile, or the identity made by a parallel sign-in
            identity = identity_for(issuer=issuer, subject=subject)
            if identity is not None:
                return identity.user
    raise IntegrityError(f"no free username for {username!r}")


def record_sign_in(*, issuer: str, subject: str) -> None:
    SSOIdentity.objects.filter(issuer=issuer, subject=subject).update(last_login_at=timezone.now())


def record_refusal(*, issuer: str, subject: str, reason: str) -> Any | None:
    """A sign-in the provider vouched for was refused: the person's tokens stop and every browser
    they are signed in on is signed out. The id of their account, or None when nobody is known.

    Whatever made the handbook refuse them today holds for the session they opened yesterday too;
    a later sign-in that succeeds opens a new one (and starts their tokens again).
    """
    identities = SSOIdentity.objects.filter(issuer=issuer, subject=subject)
    user_id = identities.values_list("user_id", flat=True).first()
    if user_id is None:
        return None
    identities.update(refused_at=timezone.now(), refused_reason=reason[:200])
    ended = sessions_end(user_ids=[user_id])
    logger.warning(
        "sign-in refused for a known identity (%s): %s; their tokens stop, %d browser session(s) ended",
        issuer,
        reason,
        ended,
    )
    return user_id


def link(*, user: Any, issuer: str, subject: str) -> SSOIdentity:
    """An admin links an account to a provider account (its next sign-in opens that account)."""
    issuer, subject = issuer.strip(), subject.strip()
    if not issuer or not subject:
        raise IdentityError("Give both the issuer and the subject.")
    existing = identity_for(issuer=issuer, subject=subject)
    if existing is not None:
        raise IdentityError(f"That identity already signs in as {existing.user.get_username()!r}; unlink it first.")
    if SSOIdentity.objects.filter(user=user, issuer=issuer).exists():
        raise IdentityError(f"{user.get_username()!r} is already linked to another subject of that issuer.")
    return SSOIdentity.objects.create(user=user, issuer=issuer, subject=subject)


def unlink(*, user: Any, issuer: str, subject: str) -> bool:
    deleted, _kinds = SSOIdentity.objects.filter(user=user, issuer=issuer.strip(), subject=subject.strip()).delete()
    return bool(deleted)
