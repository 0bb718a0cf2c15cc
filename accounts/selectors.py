"""Reads for the profile page, the token checks and sign-in."""

from __future__ import annotations

import functools
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import connections, router
from django.db.models import QuerySet

from accounts.models import PersonalToken, SSOIdentity
from core.prepared import ModelRows, prepared_cursor


def user_by_id(user_id: Any) -> Any:
    """The user ``user_id`` names (the id kept in a session), or None.

    Read on every request: one prepared statement (core/prepared.py) and the model built from its
    row, instead of the ORM building the same query again each time.
    """
    model = get_user_model()
    try:
        pk = model._meta.pk.to_python(user_id)
    except ValidationError:  # a value no id can be: nobody
        return None
    rows = _user_rows()
    connection = connections[router.db_for_read(model)]
    with prepared_cursor(connection) as cursor:
        cursor.execute(
            f'SELECT {rows.columns} FROM {model._meta.db_table} u WHERE u."{model._meta.pk.column}" = %s',
            [pk],  # noqa: S608 - the model's own names
        )
        found = rows.build(connection, cursor.fetchall())
    return found[0] if found else None


@functools.cache
def _user_rows() -> ModelRows:
    return ModelRows(get_user_model(), "u")


def tokens_of(*, user: Any) -> QuerySet[PersonalToken]:
    return PersonalToken.objects.filter(user=user).order_by("-created_at")


def has_sso_identity(*, user: Any) -> bool:
    return SSOIdentity.objects.filter(user=user).exists()


def live_token_count(*, user: Any, now: datetime) -> int:
    return PersonalToken.objects.filter(user=user, revoked_at__isnull=True, expires_at__gt=now).count()


def sso_allows_tokens(*, user_id: int, now: datetime) -> bool:
    """Whether the tokens of this person may work, as far as single sign-on is concerned.

    People without a provider identity are not concerned (True). A person the provider vouches
    for must have signed in through it within TOKEN_SSO_FRESHNESS_DAYS, and not have had a
    sign-in refused since: the provider is where people are removed, and it tells the handbook
    only when they sign in.
    """
    identities = list(SSOIdentity.objects.filter(user_id=user_id).values_list("last_login_at", "refused_at"))
    if not identities:
        return True
    if any(refused and (last is None or refused >= last) for last, refused in identities):
        return False
    latest = max((last for last, _refused in identities if last is not None), default=None)
    return latest is not None and latest >= now - timedelta(days=settings.TOKEN_SSO_FRESHNESS_DAYS)


def identity_for(*, issuer: str, subject: str) -> SSOIdentity | None:
    return SSOIdentity.objects.select_related("user").filter(issuer=issuer, subject=subject).first()
