from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from accounts.models import PersonalToken


def tokens_of(*, user: Any) -> QuerySet[PersonalToken]:
    return PersonalToken.objects.filter(user=user).order_by("-created_at")
