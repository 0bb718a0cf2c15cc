"""``{% page_summary page %}``: a page's summary block, for the page template.

The page view knows nothing of summaries: the template asks for the block."""

from __future__ import annotations

from typing import Any

from django import template
from django.template.loader import render_to_string
from django.utils.safestring import SafeString

from summaries.selectors import summary_for_page

register = template.Library()


@register.simple_tag(takes_context=True)
def page_summary(context: Any, page: Any) -> SafeString | str:
    summary, updating = summary_for_page(page=page, user=context["request"].user)
    if summary is not None and not summary.text.strip():
        # Nothing to summarise (an empty page, an index of links, a checklist of questions:
        # summaries/extractive.py): no summary box at all rather than an empty one.
        return ""
    return render_to_string(
        "summaries/_summary.html",
        {
            "summary": summary,
            # Extractive key points often repeat the summary's own sentences: show only new ones.
            "key_points": [p for p in (summary.key_points if summary else []) if p not in summary.text],
            "summary_updating": updating,
        },
    )
