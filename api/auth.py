"""Who is calling: a personal access token (``Authorization: Bearer``) or a browser session.

A token acts exactly as its owner: ``request.user`` becomes the owner, loaded
fresh for every request, and every read goes through the same permission
filter as the web pages (``Page.objects.visible_to(user)``). A request that
presents an Authorization header is judged by that header alone: a bad token
is a 401 even when a session cookie rides along.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja.errors import AuthenticationError
from ninja.security import HttpBearer, SessionAuth

from accounts.models import PersonalToken
from accounts.services import token_authenticate
from core.ratelimit import allow


class TokenAuth(HttpBearer):
    """``Authorization: Bearer <token>``; a header that is present but not a live token is a 401."""

    def __call__(self, request: HttpRequest) -> PersonalToken | None:
        header = request.headers.get("Authorization")
        if header is None:
            return None  # let the session scheme try
        scheme, _, secret = header.partition(" ")
        address = request.META.get("REMOTE_ADDR")
        token = token_authenticate(secret.strip(), address=address) if scheme.lower() == "bearer" else None
        if token is None:
            raise AuthenticationError(401, "Missing, unknown, revoked or expired token.")
        request.user = token.user
        return token

    def authenticate(self, request: HttpRequest, token: str) -> PersonalToken | None:
        return token_authenticate(token)  # not reached: __call__ does the work


class SessionOnly(SessionAuth):
    """The browser session (CSRF checked on unsafe methods), only when no token was presented."""

    def __call__(self, request: HttpRequest) -> Any:
        if "Authorization" in request.headers:
            return None
        # No signed-in session: there is nothing for CSRF to protect, and the caller (curl, a script
        # that forgot its token) should read the documented 401, not ninja's "CSRF check Failed".
        if not getattr(request.user, "is_authenticated", False):
            return None
        return super().__call__(request)


def calling_token(request: HttpRequest) -> PersonalToken | None:
    auth = getattr(request, "auth", None)
    return auth if isinstance(auth, PersonalToken) else None


def rate_keys(*, user_id: int, token_id: int | None = None) -> list[str]:
    """What a call counts against: its person, whichever token or session they call with, and the token.

    Counting the person is what makes a limit a limit: a person may hold several tokens
    (``API_MAX_TOKENS_PER_PERSON``), and each one used to have a whole allowance of its own.
    """
    keys = [f"user:{user_id}"]
    if token_id is not None:
        keys.append(f"token:{token_id}")
    return keys


def allow_call(kind: str, rate: str, *, user_id: int, token_id: int | None = None) -> bool:
    """Count one call of ``kind`` (REST API and MCP share the keys); False once any count is over ``rate``."""
    results = [allow(f"api:{kind}:{key}", rate) for key in rate_keys(user_id=user_id, token_id=token_id)]
    return all(results)
