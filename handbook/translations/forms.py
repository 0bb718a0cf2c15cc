from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from core.form_fields import model_choice_field
from handbook.models import Page
from handbook.translations.selectors import link_candidates


class _TwinChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Page) -> str:
        return f"{obj.space.title} › {obj.title} ({obj.language.upper()})"


class TranslationLinkForm(forms.Form):
    # The choices are the permission: only pages this user may edit, in another language.
    twin = _TwinChoiceField(label=_("Translation"), queryset=Page.objects.none(), empty_label=None)

    def __init__(self, *args: Any, page: Page, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model_choice_field(self, "twin").queryset = link_candidates(page, user)
