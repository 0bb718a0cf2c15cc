"""``{% page_summary page %}``: a page's summary block, for the page template.

The page view knows nothing of summaries: the template asks for the block."""

from __future__ import annotations

from typing import Any

from django import template

from summaries.selectors import summary_for_page

register = template.Library()


@register.inclusion_tag("summaries/_summary.html", takes_context=True)
def page_summary(context: dict[str, Any], page: Any) -> dict[str, Any]:
    summary, updating = summary_for_page(page=page, user=context["request"].user)
    return {
        "summary": summary,
        # Extractive key points often repeat the summary's own sentences: show only new ones.
        "key_points": [p for p in (summary.key_points if summary else []) if p not in summary.text],
        "summary_updating": updating,
    }
