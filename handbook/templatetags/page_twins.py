"""``{% page_twin page %}`` for the page header and ``{% outdated_translations_section %}`` for
Insights: neither view knows of translations (handbook/translations/)."""

from __future__ import annotations

from typing import Any

from django import template

from handbook.translations.selectors import outdated_translations, twin_block

register = template.Library()

# The link to a twin is worded in the twin's language: it is read by someone who reads that one.
TWIN_LINK_LABELS = {"fr": "Version française", "en": "English version"}


@register.inclusion_tag("handbook/translations/_twin.html", takes_context=True)
def page_twin(context: dict[str, Any], page: Any) -> dict[str, Any]:
    block = twin_block(page, context["request"].user)
    label = ""
    if block.twin is not None:
        label = TWIN_LINK_LABELS.get(block.twin.language[:2], block.twin.get_language_display())
    return {"page": page, "block": block, "label": label, "csrf_token": context.get("csrf_token")}


@register.inclusion_tag("handbook/translations/_insights_section.html", takes_context=True)
def outdated_translations_section(context: dict[str, Any]) -> dict[str, Any]:
    return {"pages": outdated_translations(context["request"].user)}
