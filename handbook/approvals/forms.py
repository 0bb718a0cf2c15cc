"""The space admin's approval settings and the reviewer's decision."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import Group
from django.utils.translation import gettext_lazy as _

from handbook.approval_models import MAX_COMMENT_CHARS


class SpaceApprovalForm(forms.Form):
    requires_review = forms.BooleanField(
        label=_("Review before publishing"),
        required=False,
        help_text=_(
            "Publishing then sends the text to the reviewers: readers keep the published text until one approves it."
        ),
    )
    reviewer_group = forms.ModelChoiceField(
        label=_("Reviewers"),
        queryset=Group.objects.order_by("name"),
        required=False,
        empty_label=_("(choose a group)"),
        help_text=_("Members of this group who may edit a page approve its changes; administrators may too."),
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("requires_review") and data.get("reviewer_group") is None:
            self.add_error("reviewer_group", _("Name the group that reviews this space's pages."))
        return data


class ApprovalDecisionForm(forms.Form):
    decision = forms.ChoiceField(choices=[("approve", _("Approve")), ("changes", _("Ask for changes"))])
    # The request and revision shown on the page: the decision is for that text, not for whatever
    # waits when the form arrives (the template writes them from what it shows).
    request = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    revision = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    comment = forms.CharField(
        label=_("Comment for the author"),
        widget=forms.Textarea(attrs={"rows": 4}),
        required=False,
        max_length=MAX_COMMENT_CHARS,
        help_text=_("Required when asking for changes."),
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("decision") == "changes" and not (data.get("comment") or "").strip():
            self.add_error("comment", _("Say what should change."))
        return data
