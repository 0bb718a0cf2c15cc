"""Typed access to a form's own fields: ``form.fields[name]`` is a plain ``Field`` to the type
checker, while ``choices`` and ``queryset`` belong to its subclasses."""

from __future__ import annotations

from typing import Any

from django import forms


def choice_field(form: forms.BaseForm, name: str) -> forms.ChoiceField:
    """The form's copy of the choice field ``name``, to set its choices for this form."""
    field = form.fields[name]
    if not isinstance(field, forms.ChoiceField):
        raise TypeError(f"{type(form).__name__}.{name} is a {type(field).__name__}, not a ChoiceField")
    return field


def model_choice_field(form: forms.BaseForm, name: str) -> forms.ModelChoiceField[Any]:
    """The form's copy of the model choice field ``name``, to set its queryset for this form."""
    field = form.fields[name]
    if not isinstance(field, forms.ModelChoiceField):
        raise TypeError(f"{type(form).__name__}.{name} is a {type(field).__name__}, not a ModelChoiceField")
    return field
