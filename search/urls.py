from django.urls import path

from search import views

urlpatterns = [
    path("search/", views.search_view, name="search"),
    path("ask/", views.ask_view, name="ask"),
    path("ask/stream/", views.ask_stream_view, name="ask_stream"),
    path("ask/feedback/", views.ask_feedback_view, name="ask_feedback"),
]
