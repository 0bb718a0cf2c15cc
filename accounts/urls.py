from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import path
from mozilla_django_oidc import views as oidc_views

from accounts import views


def _when_configured(view):
    """The provider's views answer 404 until OpenID Connect is configured (and need no login)."""

    @login_not_required
    def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not settings.OIDC_ENABLED:
            raise Http404
        return view(request, *args, **kwargs)

    return wrapped


urlpatterns = [
    path("accounts/profile/", views.profile, name="profile"),
    path("accounts/tokens/<int:token_id>/revoke/", views.token_revoke_view, name="token_revoke"),
    path(
        "oidc/authenticate/",
        _when_configured(oidc_views.OIDCAuthenticationRequestView.as_view()),
        name="oidc_authentication_init",
    ),
    path(
        "oidc/callback/",
        _when_configured(oidc_views.OIDCAuthenticationCallbackView.as_view()),
        name="oidc_authentication_callback",
    ),
]
