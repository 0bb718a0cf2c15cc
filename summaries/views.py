"""The summary picker. Thin: the page is loaded through the edit permission, the pick saved by
``picks.summary_pick_save``, the panel rendered by ``panel.render_panel``."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.http import HtmxHttpRequest
from handbook.lookups import editable_page
from summaries.panel import render_panel
from summaries.picks import PickError, summary_pick_save


@login_required
@require_POST
def summary_pick(request: HtmxHttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    """Save the ticked units as the page's summary. 404 for a page the user cannot read, 403 for
    one they read but cannot edit (``editable_page``)."""
    page = editable_page(request.user, space_slug, page_slug)
    try:
        revision_id = int(request.POST.get("revision", ""))
    except ValueError:
        return HttpResponseBadRequest(_("The form was incomplete: reload the page and pick again."))
    error = ""
    try:
        summary_pick_save(page=page, editor=request.user, revision_id=revision_id, units=request.POST.getlist("unit"))
    except PickError as exc:
        error = str(exc)
    if request.htmx:  # the panel swaps in place, the error inside it
        return HttpResponse(render_panel(request, page, error=error))
    if error:
        messages.error(request, error)
    else:
        messages.success(request, _("The summary pick is saved."))
    return redirect(page.get_absolute_url() + "#page-summary")
