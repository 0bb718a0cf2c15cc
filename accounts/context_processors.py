from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest


def sign_in(request: HttpRequest) -> dict[str, Any]:
    """What the login page offers: the provider's button, the password form, or both."""
    return {
        "oidc_provider_name": settings.OIDC_PROVIDER_NAME if settings.OIDC_ENABLED else "",
        "local_login_enabled": settings.LOCAL_LOGIN_ENABLED,
    }
