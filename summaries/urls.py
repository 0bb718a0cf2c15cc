"""Included under each page's address (``handbook/urls.py`` page_patterns)."""

from django.urls import path

from summaries import views

urlpatterns = [
    path("summary/pick/", views.summary_pick, name="summary_pick"),
]
