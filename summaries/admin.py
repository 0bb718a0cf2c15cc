"""Summaries in the admin: status per page, regenerate, failures with their error.

The admin site admits superusers only (handbook/admin.py), who read every page.
"""

from __future__ import annotations

from django.contrib import admin, messages

from handbook.models import Page
from summaries.models import Summary


@admin.register(Summary)
class SummaryAdmin(admin.ModelAdmin):
    list_display = ["page", "method", "status", "revision", "model", "updated_at"]
    list_filter = ["status", "method", "page__space"]
    search_fields = ["page__title", "page__ref", "error"]
    readonly_fields = [f.name for f in Summary._meta.fields]
    actions = ["regenerate_selected", "regenerate_spaces_of_selected", "regenerate_all"]

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False

    def get_queryset(self, request):  # type: ignore[no-untyped-def]
        return super().get_queryset(request).select_related("page", "revision")

    def _enqueue(self, request, pages) -> None:  # type: ignore[no-untyped-def]
        from summaries.tasks import regenerate_summary

        count = 0
        for page_id in pages.values_list("id", flat=True):
            regenerate_summary.delay(page_id)
            count += 1
        self.message_user(request, f"Queued {count} page(s) for a new summary.", messages.SUCCESS)

    @admin.action(description="Regenerate summaries of the selected pages")
    def regenerate_selected(self, request, queryset):  # type: ignore[no-untyped-def]
        self._enqueue(request, Page.objects.published().filter(summaries__in=queryset).distinct())

    @admin.action(description="Regenerate summaries of every page in the selected pages' spaces")
    def regenerate_spaces_of_selected(self, request, queryset):  # type: ignore[no-untyped-def]
        spaces = queryset.values_list("page__space_id", flat=True)
        self._enqueue(request, Page.objects.published().filter(space_id__in=spaces))

    @admin.action(description="Regenerate every summary")
    def regenerate_all(self, request, queryset):  # type: ignore[no-untyped-def]
        self._enqueue(request, Page.objects.published())
