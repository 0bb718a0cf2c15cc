from django.urls import path

from search import views
from search.ask import views as ask_views
from search.insights import views as insights_views
from search.verified import views as verified_views

urlpatterns = [
    path("search/", views.search_view, name="search"),
    path("search/typing/", views.search_typing_view, name="search_typing"),
    path("search/opened/", views.search_opened_view, name="search_opened"),
    path("ask/", ask_views.ask_view, name="ask"),
    path("ask/stream/", ask_views.ask_stream_view, name="ask_stream"),
    path("ask/feedback/", ask_views.ask_feedback_view, name="ask_feedback"),
    path("ask/verify/", verified_views.verify_view, name="ask_verify"),
    path("ask/verified/<int:pk>/", verified_views.verified_change_view, name="ask_verified_change"),
    path("insights/", insights_views.insights_view, name="insights"),
]
