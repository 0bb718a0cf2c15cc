"""The impact preview, under each page's address (mounted with the page's actions in config/urls.py)."""

from django.urls import path

from search.impact import views

urlpatterns = [
    path("impact/", views.page_impact, name="page_impact"),
]
