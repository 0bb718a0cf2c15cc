from django.contrib import admin
from django.http import Http404
from django.urls import path


def _not_yet(request, **kwargs):  # replaced by the reading views
    raise Http404


urlpatterns = [
    path("admin/", admin.site.urls),
    path("spaces/<slug:space_slug>/", _not_yet, name="space_detail"),
    path("spaces/<slug:space_slug>/<slug:page_slug>/", _not_yet, name="page_detail"),
]
