from django.contrib.auth.decorators import login_not_required
from django.urls import URLPattern, URLResolver, include, path

from api.mcp import mcp_endpoint
from api.views import api


def _own_auth(patterns: list[URLPattern | URLResolver]) -> list[URLPattern | URLResolver]:
    """The API answers 401 in JSON itself: the site's login wall (a redirect) must not stand in front."""
    for pattern in patterns:
        if isinstance(pattern, URLPattern):
            login_not_required(pattern.callback)
    return patterns


_patterns, _app_name, _namespace = api.urls
urlpatterns = [
    path("api/v1/", include((_own_auth(_patterns), _app_name), namespace=_namespace)),
    path("mcp", mcp_endpoint, name="mcp"),
]
