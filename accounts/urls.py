from django.urls import path

from accounts import views

urlpatterns = [
    path("accounts/profile/", views.profile, name="profile"),
    path("accounts/tokens/<int:token_id>/revoke/", views.token_revoke_view, name="token_revoke"),
]
