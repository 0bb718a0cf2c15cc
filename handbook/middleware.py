"""Login wall that also speaks htmx."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import REDIRECT_FIELD_NAME
from django.contrib.auth.middleware import LoginRequiredMiddleware as DjangoLoginRequiredMiddleware
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse


class LoginRequiredMiddleware(DjangoLoginRequiredMiddleware):
    """Django's LoginRequiredMiddleware, plus: an htmx request from a user whose
    session expired gets ``HX-Redirect`` to the login page (coming back to the
    page they were on), instead of the login page swapped into a fragment."""

    # Django's stubs promise a redirect here; the htmx answer is a 204 with HX-Redirect.
    def handle_no_permission(self, request: HttpRequest, view_func: Any) -> HttpResponse:  # type: ignore[override]
        htmx = getattr(request, "htmx", None)
        if not htmx:
            return super().handle_no_permission(request, view_func)
        next_path = htmx.current_url_abs_path or "/"
        target = redirect_to_login(next_path, self.get_login_url(view_func), REDIRECT_FIELD_NAME)
        response = HttpResponse(status=204)
        response["HX-Redirect"] = target["Location"]
        return response
