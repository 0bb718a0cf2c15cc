"""Who anything is shown to or done for: a signed-in user whose account is not deactivated."""

from __future__ import annotations

from typing import Any


def is_active_user(user: Any) -> bool:
    """Signed in and active. Anonymous users and deactivated accounts (an SSO account switched off,
    a leaver) read nothing and can do nothing, whatever groups they still belong to."""
    return bool(getattr(user, "is_authenticated", False) and getattr(user, "is_active", False))
