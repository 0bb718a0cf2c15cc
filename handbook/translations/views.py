"""The "Translations" action of a page: link it to its translation, unlink, dismiss the flag."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from handbook.lookups import editable_page
from handbook.models import Page
from handbook.translations import services
from handbook.translations.forms import TranslationLinkForm
from handbook.translations.selectors import readable_twin


def _back(page: Page) -> HttpResponse:
    url = page.get_absolute_url() if page.is_published else page.space.get_absolute_url()
    return redirect(url)


@login_required
@require_http_methods(["GET", "POST"])
def page_translations(request: HttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    page = editable_page(request.user, space_slug, page_slug)
    form = TranslationLinkForm(request.POST or None, page=page, user=request.user)
    if request.method == "POST" and request.POST.get("action") == "unlink":
        services.translation_unlink(page=page, user=request.user)
        messages.success(request, _("The translation link was removed."))
        return _back(page)
    if request.method == "POST" and form.is_valid():
        try:
            services.translation_link(page=page, twin=form.cleaned_data["twin"], user=request.user)
        except services.TranslationError as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _("The pages are now linked as translations."))
            return _back(page)
    context = {
        "page": page,
        "space": page.space,
        "form": form,
        # Only a twin this editor may read is named; a hidden one looks like none.
        "twin": readable_twin(page, request.user),
    }
    return render(request, "handbook/translations/page_translations.html", context)


@login_required
@require_POST
def translation_dismiss(request: HttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    page = editable_page(request.user, space_slug, page_slug)
    services.translation_dismiss_outdated(page=page, user=request.user)
    messages.success(request, _("The translation is marked as up to date."))
    return _back(page)
