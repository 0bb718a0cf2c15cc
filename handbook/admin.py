"""Admin: an overview and the escape hatch (restore deleted pages), for superusers only.

Content is edited in the app, where revisions, conflicts and reindexing
happen; here page text is read-only. Staff who edit a space manage its groups
and page restrictions in the app (the space's and page's "Access" pages,
``can_admin_space``), not here.

Why superusers only: the admin's lists, searches, list filters, raw-id lookups,
autocompletes and change forms each read whole tables, so a staff account with
a model's view permission saw titles of pages it cannot read. Filtering every
one of those per user would be a second permission system to keep in step with
``handbook/permissions.py``; superusers read everything anyway. The site
therefore admits active staff superusers and nobody else, whatever model
permissions an account holds, and its login shares the site login's lockout.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from handbook.forms import ThrottledAuthenticationForm
from handbook.markdown_import.admin_upload import MarkdownZipImportMixin
from handbook.models import Page, Revision, SlugRedirect, Space
from handbook.services import page_set_restrictions, page_undelete


def admin_site_admits(user: Any) -> bool:
    """Django's own gate (active staff), narrowed to superusers."""
    return bool(user.is_active and user.is_staff and user.is_superuser)


class SuperuserLoginForm(ThrottledAuthenticationForm):
    """The admin's login: the site login's throttle (one lockout for both), superusers only."""

    error_messages = {
        **ThrottledAuthenticationForm.error_messages,
        "invalid_login": _(
            "Please enter the username and password of a superuser account. The admin is only for superusers."
        ),
    }

    def confirm_login_allowed(self, user: Any) -> None:
        super().confirm_login_allowed(user)
        if not admin_site_admits(user):
            raise ValidationError(self.error_messages["invalid_login"], code="invalid_login")


# The default site is kept (third-party and auth registrations stay on it);
# replacing it would need a custom AdminConfig in INSTALLED_APPS for the same gate.
admin.site.has_permission = lambda request: admin_site_admits(request.user)  # type: ignore[method-assign]
admin.site.login_form = SuperuserLoginForm
admin.site.site_header = _("Handbook administration (superusers only)")


@admin.register(Space)
class SpaceAdmin(MarkdownZipImportMixin, admin.ModelAdmin):  # + "Import Markdown (zip)"
    list_display = ["title", "slug", "updated_at"]
    search_fields = ["title", "slug"]
    prepopulated_fields = {"slug": ["title"]}
    filter_horizontal = ["viewer_groups", "editor_groups"]


class RevisionInline(admin.TabularInline):
    model = Revision
    fields = readonly_fields = ("number", "title", "author", "note", "created_at")
    extra = 0
    can_delete = False
    show_change_link = True
    ordering = ["-number"]

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class DeletedFilter(admin.SimpleListFilter):
    title = _("deleted")
    parameter_name = "deleted"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
        return [("no", _("Live")), ("yes", _("Deleted"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Page]) -> QuerySet[Page]:
        if self.value() == "yes":
            return queryset.filter(deleted_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(deleted_at__isnull=True)
        return queryset


class PageAdminForm(forms.ModelForm):
    """The restriction groups as a plain form field: Django's admin cannot edit a many-to-many with a
    through model (``PageRestriction``, whose protected group keeps restrictions from vanishing)."""

    restrictions = forms.ModelMultipleChoiceField(
        queryset=Group.objects.order_by("name"),
        required=False,
        widget=FilteredSelectMultiple(_("groups"), is_stacked=False),
        label=_("restricted to groups"),
        help_text=_("When set, only members of these groups (among the space's readers) may read the page."),
    )

    class Meta:
        model = Page
        fields = ["title", "parent"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["restrictions"].initial = list(self.instance.restricted_to_groups.all())


@admin.register(Page)
class PageAdmin(admin.ModelAdmin):
    form = PageAdminForm
    list_display = ["title", "space", "language", "status", "updated_at", "is_deleted"]
    list_filter = ["status", "space", "language", DeletedFilter]
    search_fields = ["title", "ref"]
    list_select_related = ["space"]
    readonly_fields = [
        "ref",
        "slug",
        "space",
        "language",
        "body",
        "status",
        "published_revision",
        "last_editor",
        "deleted_at",
        "created_at",
        "updated_at",
    ]
    fields = ["title", *readonly_fields[:-2], "parent", "restrictions", "created_at", "updated_at"]
    inlines = [RevisionInline]
    actions = ["restore_pages"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Page]:
        return Page.objects.all().select_related("space")  # soft-deleted pages included, to restore them

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # pages are created in the app (revision 1, indexing)

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "parent":
            kwargs["queryset"] = Page.objects.editable_by(request.user).select_related("space")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        page_set_restrictions(page=form.instance, groups=list(form.cleaned_data["restrictions"]))

    @admin.display(boolean=True, description=_("deleted"))
    def is_deleted(self, obj: Page) -> bool:
        return obj.deleted_at is not None

    @admin.action(description=_("Restore selected deleted pages"))
    def restore_pages(self, request: HttpRequest, queryset: QuerySet[Page]) -> None:
        pages = list(queryset.filter(deleted_at__isnull=False))
        for page in pages:
            page_undelete(page=page)
        self.message_user(
            request,
            ngettext("%d page restored.", "%d pages restored.", len(pages)) % len(pages),
            messages.SUCCESS,
        )


@admin.register(Revision)
class RevisionAdmin(admin.ModelAdmin):
    list_display = ["page", "number", "title", "author", "created_at"]
    search_fields = ["page__title", "page__ref", "title"]
    list_select_related = ["page", "author"]
    readonly_fields = ["page", "number", "title", "body", "author", "note", "created_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # history only grows, through the app


@admin.register(SlugRedirect)
class SlugRedirectAdmin(admin.ModelAdmin):
    list_display = ["space_slug", "page_slug", "page"]
    search_fields = ["space_slug", "page_slug", "page__title"]
    raw_id_fields = ["page"]
