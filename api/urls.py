from django.contrib.auth.decorators import login_not_required
from django.urls import URLPattern, URLResolver, include, path, re_path
from django.views.decorators.csrf import csrf_exempt

from api.mcp import mcp_endpoint
from api.views import api, unknown_path


def _own_auth(patterns: list[URLPattern | URLResolver]) -> list[URLPattern | URLResolver]:
    """The API answers 401 in JSON itself: the site's login wall (a redirect) must not stand in front."""
    for pattern in patterns:
        if isinstance(pattern, URLPattern):
            login_not_required(pattern.callback)
    return patterns


_patterns, _app_name, _namespace = api.urls
# Whatever the API's own paths do not match under /api/v1 (a POST too: no CSRF check stands in
# front of a 404) is the API's JSON 404, not the site's HTML page.
_unknown = login_not_required(csrf_exempt(unknown_path))
urlpatterns = [
    # Before the API: its root ("api-root") is there only for django-ninja to reverse, and answers HTML.
    path("api/v1/", _unknown),
    path("api/v1/", include((_own_auth(_patterns), _app_name), namespace=_namespace)),
    re_path(r"^api/v1(?:/(?P<rest>.*))?$", _unknown, name="api-unknown"),
    path("mcp", mcp_endpoint, name="mcp"),
]
