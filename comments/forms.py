from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from comments.models import MAX_LENGTH
from core.form_fields import choice_field


class CommentForm(forms.Form):
    body = forms.CharField(label=_("Add a comment"), max_length=MAX_LENGTH, widget=forms.Textarea)
    anchor = forms.ChoiceField(label=_("On section"), required=False)

    def __init__(self, *args: Any, sections: list[dict[str, Any]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Only the page's own heading ids: an anchor becomes a link on the page.
        choice_field(self, "anchor").choices = [("", _("The whole page"))] + [(s["id"], s["text"]) for s in sections]
