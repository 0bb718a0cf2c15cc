"""The profile page: who you are, your groups, and your personal access tokens."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from accounts.forms import TokenCreateForm
from accounts.selectors import has_sso_identity, tokens_of
from accounts.services import TokenError, token_create, token_revoke


@login_required
@never_cache  # the page shows a new token once: no copy of it may be kept by a cache
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    form = TokenCreateForm(request.POST or None)
    new_secret = ""
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                new = token_create(user=request.user, **form.cleaned_data)
                new_secret = new.secret
                form = TokenCreateForm()
            except TokenError as exc:
                form.add_error(None, str(exc))
        if not new_secret:
            status = 400
    context = {
        "form": form,
        "new_secret": new_secret,
        "tokens": tokens_of(user=request.user),
        "group_names": sorted(request.user.groups.values_list("name", flat=True)),
        # People known by single sign-on: their tokens stop when they stop signing in (README).
        "sso_freshness_days": settings.TOKEN_SSO_FRESHNESS_DAYS if has_sso_identity(user=request.user) else 0,
    }
    return render(request, "accounts/profile.html", context, status=status)


@login_required
@require_POST
def token_revoke_view(request: HttpRequest, token_id: int) -> HttpResponse:
    if not token_revoke(user=request.user, token_id=token_id):
        raise Http404
    messages.success(request, _("The token was revoked; it no longer works."))
    return redirect("profile")
