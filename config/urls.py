"""Root URLs: each app's routes, mounted here so that no app wires up another."""

from django.contrib import admin
from django.urls import include, path

from handbook import urls as handbook_urls

# Under each page's address: the handbook's page actions, then the comments ("who is editing"
# too), the editors' summary picker and a draft's impact preview. After the space-level routes,
# which start with "_".
page_routes = [
    *handbook_urls.page_patterns,
    path("", include("comments.urls")),
    path("", include("summaries.urls")),
    path("", include("search.impact.urls")),
]

urlpatterns = [
    *handbook_urls.urlpatterns,
    path("spaces/<slug:space_slug>/<slug:page_slug>/", include(page_routes)),
    path("", include("search.urls")),
    path("admin/", admin.site.urls),
    path("", include("accounts.urls")),
    path("", include("api.urls")),
]
