"""Fixtures for the API tests: the handbook of tests/handbook plus tokens."""

from __future__ import annotations

from typing import Any

import pytest

from tests.handbook.conftest import _fast_passwords_and_clean_cache, handbook  # noqa: F401


@pytest.fixture
def make_token(db: Any):  # type: ignore[no-untyped-def]
    from accounts.services import token_create

    def make(user: Any, *, scope: str = "read", days: int = 30, name: str = "test") -> str:
        return token_create(user=user, name=name, scope=scope, days=days).secret

    return make


def bearer(secret: str) -> dict[str, str]:
    return {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
