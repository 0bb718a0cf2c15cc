from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.models import PersonalToken

LIFETIMES = [(7, _("7 days")), (30, _("30 days")), (90, _("90 days")), (365, _("1 year"))]


class TokenCreateForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100, help_text=_("What the token is for, e.g. “chat bot”."))
    scope = forms.ChoiceField(label=_("Access"), choices=PersonalToken.Scope.choices, initial="read")
    days = forms.TypedChoiceField(label=_("Expires after"), choices=LIFETIMES, coerce=int, initial=90)
