"""``{% comment_thread page %}`` for the page template and ``{% open_comments %}`` for Insights.

Neither view knows of comments: their templates ask for the block, as they do for summaries."""

from __future__ import annotations

from typing import Any

from django import template

from comments.selectors import open_comments_for_insights
from comments.views import thread_context

register = template.Library()


@register.inclusion_tag("comments/_thread.html", takes_context=True)
def comment_thread(context: dict[str, Any], page: Any) -> dict[str, Any]:
    return thread_context(page=page, user=context["request"].user)


@register.inclusion_tag("comments/_insights_section.html", takes_context=True)
def open_comments(context: dict[str, Any]) -> dict[str, Any]:
    user = context["request"].user
    return {"comments": open_comments_for_insights(user), "user": user}
