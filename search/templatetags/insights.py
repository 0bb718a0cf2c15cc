"""``{% if user|sees_insights %}``: the navigation's Insights link, for space editors and superusers only."""

from __future__ import annotations

from typing import Any

from django import template
from django.db import DatabaseError

from search.insights.selectors import can_view_insights

register = template.Library()


@register.filter
def sees_insights(user: Any) -> bool:
    if not getattr(user, "is_authenticated", False):
        return False
    cached = getattr(user, "_sees_insights", None)  # base.html may ask more than once a request
    if cached is None:
        try:
            cached = can_view_insights(user)
        except DatabaseError:  # an error page must still render
            cached = False
        user._sees_insights = cached
    return cached
