"""Summaries in the admin: status per page, regenerate, failures with their error.

The admin site admits superusers only (handbook/admin.py), who read every page.
"""

from __future__ import annotations

import json

from django.contrib import admin, messages
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from handbook.models import Page
from summaries.models import Summary, SummaryPick, SummaryScorerFit
from summaries.tasks import regenerate_summary


@admin.register(Summary)
class SummaryAdmin(admin.ModelAdmin):
    list_display = ["page", "method", "status", "revision", "model", "updated_at"]
    list_filter = ["status", "method", "page__space"]
    search_fields = ["page__title", "page__ref", "error"]
    readonly_fields = [f.name for f in Summary._meta.fields]
    actions = ["regenerate_selected", "regenerate_spaces_of_selected", "regenerate_all"]

    def has_add_permission(self, request):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("page", "revision")

    def _enqueue(self, request, pages) -> None:
        count = 0
        for page_id in pages.values_list("id", flat=True):
            regenerate_summary.delay(page_id)
            count += 1
        queued = ngettext("%d page queued for a new summary.", "%d pages queued for a new summary.", count) % count
        self.message_user(request, queued, messages.SUCCESS)

    @admin.action(description=_("Regenerate summaries of the selected pages"))
    def regenerate_selected(self, request, queryset):
        self._enqueue(request, Page.objects.published().filter(summaries__in=queryset).distinct())

    @admin.action(description=_("Regenerate summaries of every page in the selected pages' spaces"))
    def regenerate_spaces_of_selected(self, request, queryset):
        spaces = queryset.values_list("page__space_id", flat=True)
        self._enqueue(request, Page.objects.published().filter(space_id__in=spaces))

    @admin.action(description=_("Regenerate every summary"))
    def regenerate_all(self, request, queryset):
        self._enqueue(request, Page.objects.published())


@admin.register(SummaryScorerFit)
class SummaryScorerFitAdmin(admin.ModelAdmin):
    """Read-only: a fit is made by the refit task after editors' picks, never by hand."""

    list_display = ["fitted_at", "in_use", "pages", "held_out"]
    readonly_fields = ["fitted_at", "in_use", "report_pretty", "weights_pretty"]
    exclude = ["weights", "report"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("ticked pages"))
    def pages(self, obj: SummaryScorerFit) -> int:
        return int(obj.report.get("pages", 0))

    @admin.display(description=_("held-out F1 (today / shipped / learnt)"))
    def held_out(self, obj: SummaryScorerFit) -> str:
        f1 = obj.report.get("held_out_f1") or {}
        return " / ".join(str(f1.get(k, "–")) for k in ("extractive", "shipped", "learnt"))

    @admin.display(description=_("fit report"))
    def report_pretty(self, obj: SummaryScorerFit) -> str:
        return format_html("<pre>{}</pre>", json.dumps(obj.report, indent=2, ensure_ascii=False))

    @admin.display(description=_("weights"))
    def weights_pretty(self, obj: SummaryScorerFit) -> str:
        return format_html("<pre>{}</pre>", json.dumps(obj.weights, indent=2, ensure_ascii=False))


@admin.register(SummaryPick)
class SummaryPickAdmin(admin.ModelAdmin):
    list_display = ["page", "revision", "editor", "picked_at"]
    list_filter = ["page__space"]
    readonly_fields = ["page", "revision", "units", "editor", "picked_at"]

    def has_add_permission(self, request):
        return False
