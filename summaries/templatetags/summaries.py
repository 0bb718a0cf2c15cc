"""``{% page_summary page %}``: a page's summary block, for the page template.

The page view knows nothing of summaries: the template asks for the block."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from summaries.panel import render_panel

register = template.Library()


@register.simple_tag(takes_context=True)
def page_summary(context: Any, page: Any) -> SafeString | str:
    # render_to_string escaped the panel's every value already.
    return mark_safe(render_panel(context["request"], page))  # noqa: S308
