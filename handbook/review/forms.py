"""The review part of the page editor: owner, review-by date, "Mark as reviewed".

The owner is one choice among the people and groups who may edit the page (plus the current
owner, so a page whose owner lost access can still be saved); a forged id is refused.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from core.form_fields import choice_field
from handbook.models import Page
from handbook.review.selectors import owner_candidates
from handbook.review.services import ReviewChoice


class PageReviewForm(forms.Form):
    owner = forms.ChoiceField(
        label=_("Owner"),
        required=False,
        help_text=_("The person or group who keeps this page up to date. Readers do not see it."),
    )
    review_by = forms.DateField(
        label=_("Review by"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        help_text=_("Left empty, publishing sets it one review period ahead."),
    )
    mark_reviewed = forms.BooleanField(
        label=_("Mark as reviewed"),
        required=False,
        help_text=_("On publish: readers see today as the last review, and the review-by date moves one period ahead."),
    )

    def __init__(self, *args: Any, page: Page, **kwargs: Any) -> None:
        kwargs.setdefault("initial", {"owner": _owner_key(page), "review_by": page.review_by})
        super().__init__(*args, **kwargs)
        self.page = page
        users, groups = owner_candidates(page)
        self._users = {f"user:{u.pk}": u for u in users}
        self._groups = {f"group:{g.pk}": g for g in groups}
        if page.owner_user is not None:
            self._users.setdefault(_owner_key(page), page.owner_user)
        if page.owner_group is not None:
            self._groups.setdefault(_owner_key(page), page.owner_group)
        choice_field(self, "owner").choices = [
            ("", _("(no owner: the space's editors)")),
            (_("Groups"), [(key, group.name) for key, group in self._groups.items()]),
            (_("People"), [(key, _person(user)) for key, user in self._users.items()]),
        ]

    def review_choice(self) -> ReviewChoice:
        key = self.cleaned_data["owner"]
        return ReviewChoice(
            owner_user=self._users.get(key),
            owner_group=self._groups.get(key),
            review_by=self.cleaned_data["review_by"],
            reviewed=self.cleaned_data["mark_reviewed"],
        )


def _owner_key(page: Page) -> str:
    if page.owner_user_id:
        return f"user:{page.owner_user_id}"
    if page.owner_group_id:
        return f"group:{page.owner_group_id}"
    return ""


def _person(user: Any) -> str:
    full = user.get_full_name()
    return f"{full} ({user.get_username()})" if full else user.get_username()
