"""Included under each page's address (``config/urls.py`` page_routes)."""

from django.urls import path

from comments import views

urlpatterns = [
    path("comments/", views.page_comments, name="page_comments"),
    path("comments/<int:comment_id>/resolve/", views.comment_resolve, name="comment_resolve"),
    path("comments/<int:comment_id>/reopen/", views.comment_reopen, name="comment_reopen"),
    path("comments/<int:comment_id>/delete/", views.comment_delete, name="comment_delete"),
    path("editing-now/", views.page_presence, name="page_presence"),
]
