"""Forms for the browser views. Querysets that offer choices are always narrowed
to what the requesting user may act on, so a forged POST cannot pick another id."""

from __future__ import annotations

import hashlib
import logging
import re
import unicodedata
from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from core.form_fields import model_choice_field
from core.ratelimit import allow, parse_rate
from handbook.models import LANGUAGES, Page, Space

logger = logging.getLogger(__name__)

MAX_TITLE_CHARS = 300
MAX_BODY_CHARS = 500_000
# Django's username field holds 150 characters; anything far longer names no account.
_MAX_USERNAME_CHARS = 600

# --- Login throttling ----------------------------------------------------------


def login_identity(username: str) -> str:
    """One name for every spelling of an account, so all of them share one failure counter.

    Authentication normalises the typed name (NFKC: "ｄavid" and "𝐝avid" log in
    as "david"), so a counter keyed on the raw text gave each look-alike its own
    fresh allowance. The name is folded the way Django compares usernames
    (NFKC, then casefold); when exactly one account answers to it, the account's
    pk is the identity, whatever spelling reached it.
    """
    # Authentication refuses names this long without normalising them (NFKC is
    # slow on huge input): they cannot log in, so their raw text is key enough.
    if len(username) > _MAX_USERNAME_CHARS:
        return "raw:" + hashlib.sha256(username.encode()).hexdigest()
    folded = unicodedata.normalize("NFKC", username).strip().casefold()
    if "\x00" in folded:  # no account has one, and Postgres refuses it as a parameter
        return f"name:{folded}"
    user_model = get_user_model()
    field = user_model.USERNAME_FIELD
    # iexact narrows in SQL; the casefold comparison decides, as Django's own does.
    candidates = [
        pk
        for pk, name in user_model._default_manager.filter(**{f"{field}__iexact": folded}).values_list("pk", field)
        if unicodedata.normalize("NFKC", str(name)).casefold() == folded
    ]
    if len(candidates) == 1:
        return f"user:{candidates[0]}"
    return f"name:{folded}"


def _login_key(request: Any, username: str) -> str:
    # REMOTE_ADDR, not X-Forwarded-For: a client-supplied header would let an
    # attacker pick a fresh "IP" per attempt. Behind a proxy this becomes
    # per-username, which still bounds guessing.
    ip = (request.META.get("REMOTE_ADDR") if request is not None else "") or "-"
    return f"login:{ip}:{login_identity(username)}"


def _lock_key(key: str) -> str:
    return "login-lock:" + hashlib.sha256(key.encode()).hexdigest()[:32]


def login_locked(key: str) -> bool:
    try:
        return bool(cache.get(_lock_key(key)))
    except Exception:  # cache down: fail open, like core.ratelimit
        return False


def login_failed(key: str) -> None:
    """Count a failed attempt; lock the key once LOGIN_RATE_LIMIT failures are reached.

    ``allow`` answers "is this hit within the limit?", so counting against
    ``limit - 1`` makes the limit-th failure the one that locks: the next
    attempt is refused before the password is even checked.
    """
    limit, period = parse_rate(settings.LOGIN_RATE_LIMIT)
    if not allow(key, f"{max(limit - 1, 0)}/{period}s"):
        try:
            cache.set(_lock_key(key), 1, timeout=period)
        except Exception:  # cache down: nothing to lock with; ratelimit fails open too
            logger.warning("login lock not stored: cache unavailable")


class ThrottledAuthenticationForm(AuthenticationForm):
    error_messages = {
        **AuthenticationForm.error_messages,
        "rate_limited": _("Too many failed attempts. Please wait a minute and try again."),
    }

    rate_limited = False

    def clean(self) -> dict[str, Any]:
        key = _login_key(self.request, str(self.data.get("username", "")))
        if login_locked(key):
            self.rate_limited = True
            raise ValidationError(self.error_messages["rate_limited"], code="rate_limited")
        try:
            return super().clean()
        except ValidationError:
            login_failed(key)
            raise


# --- Pages ----------------------------------------------------------------------


_LINE_BREAK = re.compile(r"\r\n?")


class MarkdownField(forms.CharField):
    """The page's Markdown as typed: never stripped, line breaks stored as LF.

    Browsers send every line break of a textarea as CRLF (HTML form submission), so
    without this each save through the browser rewrote every line of the stored text.
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("widget", forms.Textarea)
        super().__init__(required=False, max_length=MAX_BODY_CHARS, strip=False, **kwargs)

    def to_python(self, value: Any) -> str:
        return _LINE_BREAK.sub("\n", super().to_python(value) or "")


class _PageChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Page) -> str:
        return f"{obj.title} ({obj.space.title})"


class PageCreateForm(forms.Form):
    title = forms.CharField(label=_("Title"), max_length=MAX_TITLE_CHARS)
    language = forms.ChoiceField(label=_("Language"), choices=LANGUAGES)
    parent = forms.ModelChoiceField(
        label=_("Parent page"), queryset=Page.objects.none(), required=False, empty_label=_("(top level)")
    )
    body = MarkdownField(label=_("Text (Markdown)"))
    # Files pasted before the first save wait under this key (handbook/attachments): set on the
    # form's first showing, sent back with every post of it.
    draft_token = forms.RegexField(regex=r"^[0-9a-f]{32}$", required=False, widget=forms.HiddenInput)

    def __init__(self, *args: Any, space: Space, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # A template is a starting text, not a place in the tree.
        model_choice_field(self, "parent").queryset = (
            Page.objects.editable_by(user).filter(space=space, is_template=False).order_by("title")
        )


class PageEditForm(forms.Form):
    title = forms.CharField(label=_("Title"), max_length=MAX_TITLE_CHARS)
    body = MarkdownField(label=_("Text (Markdown)"))
    note = forms.CharField(label=_("What changed? (optional)"), max_length=300, required=False)
    # The revision the editor started from: page_save refuses to overwrite a newer one.
    base_number = forms.IntegerField(widget=forms.HiddenInput, min_value=0)


class PreviewForm(forms.Form):
    body = MarkdownField()


class PageRenameForm(forms.Form):
    title = forms.CharField(label=_("New title"), max_length=MAX_TITLE_CHARS)


class PageMoveForm(forms.Form):
    space = forms.ModelChoiceField(label=_("Space"), queryset=Space.objects.none(), empty_label=None)
    parent = _PageChoiceField(
        label=_("Parent page"), queryset=Page.objects.none(), required=False, empty_label=_("(top level)")
    )

    def __init__(self, *args: Any, page: Page, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.page = page
        # Only spaces the user may edit can be a destination: the permission on
        # the target space is enforced by the choices themselves.
        model_choice_field(self, "space").queryset = Space.objects.editable_by(user).order_by("title")
        model_choice_field(self, "parent").queryset = (
            Page.objects.editable_by(user)
            .exclude(pk=page.pk)
            .exclude(is_template=True)
            .select_related("space")
            .order_by("space__title", "title")
        )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        space, parent = data.get("space"), data.get("parent")
        if space is not None and parent is not None:
            if parent.space_id != space.pk:
                self.add_error("parent", _("The parent page must be in the chosen space."))
            elif _is_descendant(parent, self.page):
                self.add_error("parent", _("A page cannot be placed under one of its own children."))
        return data


def _is_descendant(candidate: Page, page: Page) -> bool:
    node: Page | None = candidate
    for _i in range(1000):
        if node is None:
            return False
        if node.pk == page.pk:
            return True
        node = node.parent
    return True


# --- Access -----------------------------------------------------------------------


def _group_choice(label: Any, help_text: Any) -> forms.ModelMultipleChoiceField:
    # A queryset is lazy and each form instance gets a fresh copy of it, so groups created
    # after start-up are offered without any per-form set-up.
    return forms.ModelMultipleChoiceField(
        label=label,
        queryset=Group.objects.order_by("name"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=help_text,
    )


class SpaceAccessForm(forms.Form):
    viewer_groups = _group_choice(_("Readers"), _("Members of these groups may read the space."))
    editor_groups = _group_choice(
        _("Editors"), _("Members of these groups may read, write and publish pages in the space.")
    )


class PageAccessForm(forms.Form):
    restricted_to_groups = _group_choice(
        _("Restrict to groups"), _("Leave empty so every reader of the space may read the page.")
    )
