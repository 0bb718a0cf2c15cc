"""The summary panel of a page, for the page's template tag and the picker's view alike."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse

from handbook.models import Page
from handbook.permissions import can_edit
from summaries.picks import pick_of_page, picker_units
from summaries.selectors import summary_for_page


def render_panel(request: HttpRequest, page: Page, *, error: str = "") -> str:
    """The panel's HTML; "" when there is nothing to show (no summary, no pick, no editor).

    Callers have loaded the page through a read or edit permission (the page view, the picker)."""
    user = request.user
    summary, updating = summary_for_page(page=page, user=user)
    picked = pick_of_page(page)
    editor = can_edit(user, page) and not page.is_template
    if summary is not None and not summary.text.strip() and not picked.current and not editor:
        # Nothing to summarise (an empty page, an index of links, a checklist of questions:
        # summaries/extractive.py): no summary box at all rather than an empty one.
        return ""
    shown = " ".join(picked.texts) if picked.current else (summary.text if summary else "")
    context: dict[str, Any] = {
        "summary": summary,
        "picked": picked,
        # Extractive key points often repeat the summary's own sentences: show only new ones.
        "key_points": [p for p in (summary.key_points if summary else []) if p not in shown],
        "summary_updating": updating,
        "error": error,
    }
    if editor:  # readers never get the picker, nor the page's units through it
        where = {"space_slug": page.space.slug, "page_slug": page.slug}
        context["picker"] = picker_units(page, picked)
        context["pick_url"] = reverse("summary_pick", kwargs=where)
        context["revision_id"] = page.published_revision_id
    return render_to_string("summaries/_summary.html", context, request=request)
