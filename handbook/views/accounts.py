"""Log in with Django's own view, our template and a throttled form."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import views as auth_views
from django.http import HttpResponse

from handbook.forms import ThrottledAuthenticationForm


class LoginView(auth_views.LoginView):
    template_name = "registration/login.html"
    form_class = ThrottledAuthenticationForm
    redirect_authenticated_user = True

    def form_invalid(self, form: Any) -> HttpResponse:
        response = super().form_invalid(form)
        if getattr(form, "rate_limited", False):
            response.status_code = 429
        return response


login_view = LoginView.as_view()
logout_view = auth_views.LogoutView.as_view()  # POST only since Django 5.0
