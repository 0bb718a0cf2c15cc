"""Included under each page's address (``config/urls.py`` page_routes)."""

from django.urls import path

from summaries import views

urlpatterns = [
    path("summary/pick/", views.summary_pick, name="summary_pick"),
]
