"""The core domain: spaces hold pages, pages keep every revision.

Who may read or edit what is decided in ``handbook/permissions.py`` only.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.auth.models import Group
from django.contrib.postgres.fields import ArrayField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core import languages
from handbook.permissions import PageQuerySet, SpaceQuerySet

LANGUAGES = languages.CHOICES


def text_search_config(language: str) -> str:
    """Postgres text search configuration of a page language ("fr-CA" as "fr"); anything else
    falls back to "simple" (no stemming, no stop-words) rather than guessing."""
    return languages.text_search_config((language or "")[:2])


class Space(models.Model):
    title = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    viewer_groups = models.ManyToManyField(Group, blank=True, related_name="viewable_spaces")
    editor_groups = models.ManyToManyField(Group, blank=True, related_name="editable_spaces")
    review_months = models.PositiveSmallIntegerField(
        _("review period (months)"),
        default=12,
        validators=[MinValueValidator(1), MaxValueValidator(120)],
        help_text=_("A page published or reviewed is due for its next review this many months later."),
    )
    # Approval (handbook/approvals/): when required, an editor's "Publish" asks the reviewers instead.
    # A deleted reviewer group leaves review required with no group: only superusers approve (fails closed).
    requires_review = models.BooleanField(_("review before publishing"), default=False)
    reviewer_group = models.ForeignKey(
        Group,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reviewed_spaces",
        verbose_name=_("reviewers"),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = SpaceQuerySet.as_manager()

    class Meta:
        ordering = ["title"]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("space_detail", kwargs={"space_slug": self.slug})


def _new_ref() -> str:
    return f"page:{uuid.uuid4().hex}"


class Page(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", _("Draft")
        PUBLISHED = "published", _("Published")

    space = models.ForeignKey(Space, on_delete=models.PROTECT, related_name="pages")
    ref = models.CharField(max_length=500, unique=True, default=_new_ref, help_text="Stable external reference.")
    title = models.CharField(max_length=300)
    slug = models.SlugField(max_length=200, allow_unicode=False)
    language = models.CharField(max_length=8, choices=LANGUAGES, default=languages.DEFAULT.code)
    body = models.TextField(blank=True, help_text="Markdown of the published revision.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    published_revision = models.ForeignKey(
        "Revision", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Typed with its through model: the checker cannot resolve ``through`` given as a string.
    restricted_to_groups: models.ManyToManyField[Group, PageRestriction] = models.ManyToManyField(
        Group,
        blank=True,
        through="PageRestriction",
        related_name="restricted_pages",
        help_text="When set, only members of these groups (among the space's readers) may read the page.",
    )
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children")
    last_editor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Review (handbook/review/): who keeps the page current, and by when. Set from the editor; readers
    # see only ``last_reviewed_at``, which changes when an editor publishes with "Mark as reviewed".
    owner_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="owned_pages"
    )
    owner_group = models.ForeignKey(Group, null=True, blank=True, on_delete=models.SET_NULL, related_name="owned_pages")
    review_by = models.DateField(null=True, blank=True)
    last_reviewed_at = models.DateTimeField(null=True, blank=True)
    # A template is read like any page but never indexed: no search result, passage or summary.
    is_template = models.BooleanField(_("template"), default=False)
    # Linked translation (handbook/translations/): the same page in the other language, kept symmetric
    # by the service. ``translation_outdated_since``: the twin was published with a change since then.
    translation = models.OneToOneField(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="translated_by"
    )
    translation_outdated_since = models.DateTimeField(null=True, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = PageQuerySet.as_manager()
    # Not stored: set on listed pages for the templates (handbook/views/reading.py), and between
    # pre_save and post_save by handbook/translations/signals.py.
    restricted: bool
    restricted_to: list[str]
    _translation_published: bool

    class Meta:
        ordering = ["title"]
        constraints = [
            models.UniqueConstraint(fields=["space", "slug"], name="page_unique_slug_in_space"),
            models.CheckConstraint(
                condition=Q(owner_user__isnull=True) | Q(owner_group__isnull=True), name="page_one_owner_at_most"
            ),
        ]
        indexes = [models.Index(fields=["status", "deleted_at"]), models.Index(fields=["review_by"])]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("page_detail", kwargs={"space_slug": self.space.slug, "page_slug": self.slug})

    @property
    def text_search_config(self) -> str:
        return text_search_config(self.language)

    @property
    def is_published(self) -> bool:
        return self.status == self.Status.PUBLISHED and self.published_revision_id is not None


class PageRestriction(models.Model):
    """One group a page is restricted to: the rows of ``Page.restricted_to_groups``.

    The group is protected. Permissions read "no restriction rows" as "unrestricted", so a cascade
    from a deleted group used to open the page to the whole space; now deleting a group that still
    restricts a page is refused (the admin lists the pages), and the restriction fails closed.
    The table keeps the name and columns of the auto-created one (migration 0006): the scope-stamp
    triggers of 0005 and the raw SQL of ``search.statistics`` read it by name.
    """

    page = models.ForeignKey(Page, on_delete=models.CASCADE, related_name="+")
    group = models.ForeignKey(Group, on_delete=models.PROTECT, related_name="page_restrictions")

    class Meta:
        db_table = "handbook_page_restricted_to_groups"
        unique_together = [("page", "group")]
        verbose_name = _("page restriction")
        verbose_name_plural = _("page restrictions")

    def __str__(self) -> str:
        # Shown in the admin's "protected related objects" list when a group's deletion is refused.
        return gettext("“%(page)s” (space “%(space)s”) is restricted to this group: remove the restriction first") % {
            "page": self.page.title,
            "space": self.page.space.slug,
        }


class Revision(models.Model):
    page = models.ForeignKey(Page, on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField()
    title = models.CharField(max_length=300)
    body = models.TextField(blank=True)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    note = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # Set when a reviewer approved this revision for publishing (spaces that require review).
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    approved_at = models.DateTimeField(null=True, blank=True)
    # Not stored: what the history shows it as, "published", "draft" or "earlier" (handbook/views/editing.py).
    state: str

    class Meta:
        ordering = ["page", "-number"]
        constraints = [models.UniqueConstraint(fields=["page", "number"], name="revision_unique_number")]

    def __str__(self) -> str:
        return f"{self.page.title} r{self.number}"


class SlugRedirect(models.Model):
    """An old address of a renamed or moved page, so links keep working."""

    space_slug = models.CharField(max_length=100)
    page_slug = models.CharField(max_length=200)
    page = models.ForeignKey(Page, on_delete=models.CASCADE, related_name="old_slugs")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["space_slug", "page_slug"], name="redirect_unique_path")]

    def __str__(self) -> str:
        return f"/spaces/{self.space_slug}/{self.page_slug}/ → {self.page_id}"


class PageViewDay(models.Model):
    """How many times a published page was opened on one day (``handbook/page_views.py``).

    A count, never a reader: no user, no session, no time of day.
    """

    page = models.ForeignKey(Page, on_delete=models.CASCADE, related_name="view_days")
    day = models.DateField()
    views = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["page", "day"], name="pageviewday_unique")]
        indexes = [models.Index(fields=["day"], name="pageviewday_day")]

    def __str__(self) -> str:
        return f"{self.page_id} {self.day}: {self.views}"


class ScopeStamp(models.Model):
    """When the published pages of one readership scope last changed (kept by database triggers).

    A scope is the published pages of one space with the same restriction groups (none, or one
    set): whoever may read one of them may read all of them. Triggers on pages and on their
    restrictions (migration 0005) give a scope a new ``stamp`` whenever a page enters or leaves it
    (published, unpublished, deleted, moved, restricted or not), in the same transaction. So the
    stamps of the scopes a reader may read change exactly when the set of pages they may read
    can have changed, and never because of a scope they cannot read (``search/retrieval/visibility.py``
    keeps a reader's page set while their stamps stand).
    """

    space_id = models.BigIntegerField()
    groups = ArrayField(models.IntegerField(), default=list)  # sorted restriction groups; [] = none
    stamp = models.BigIntegerField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["space_id", "groups"], name="scopestamp_unique")]

    def __str__(self) -> str:
        return f"space {self.space_id} {self.groups or 'unrestricted'}: {self.stamp}"


# Attachments and approval requests live in their own modules; importing them here registers the
# models with the app.
from handbook.approval_models import ApprovalRequest  # noqa: E402, F401
from handbook.attachment_models import Attachment  # noqa: E402, F401
