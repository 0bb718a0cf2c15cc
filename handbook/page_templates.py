"""Page templates: a page marked as a template is a starting text for new pages of its space.

A template is read like any page, by those who may read it, but it is never indexed (so never a
search result, an Ask passage or an API/MCP hit) and never summarised: the indexing and summary
work skip it, and marking a page as a template is announced like any change so its chunks go.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.db import transaction
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from core.form_fields import model_choice_field
from handbook.models import Page, Space
from handbook.page_work import page_changed


def space_templates(*, space: Space, user: Any) -> QuerySet[Page]:
    """The published templates of ``space`` that ``user`` may read, for "Start from template"."""
    return Page.objects.visible_to(user).filter(space=space, is_template=True).order_by("title")


@transaction.atomic
def page_set_template(*, page: Page, is_template: bool) -> Page:
    if page.is_template == is_template:
        return page
    Page.objects.filter(pk=page.pk).update(is_template=is_template)
    page.is_template = is_template
    page_changed(page)  # the index drops a template's chunks, and indexes a page that stops being one
    return page


class TemplateFlagForm(forms.Form):
    prefix = "tpl"

    is_template = forms.BooleanField(
        label=_("This page is a template"),
        required=False,
        help_text=_("New pages of the space can start from its text. Templates are not in search results or answers."),
    )


class StartFromTemplateForm(forms.Form):
    template = forms.ModelChoiceField(
        label=_("Start from template"), queryset=Page.objects.none(), empty_label=_("(blank page)"), required=False
    )

    def __init__(self, *args: Any, space: Space, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model_choice_field(self, "template").queryset = space_templates(space=space, user=user)
