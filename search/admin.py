"""Admin for the people who keep the index healthy (superusers: see handbook/admin.py)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, F, Q
from django.http import HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from kombu.exceptions import OperationalError

from core.queues import enqueue
from handbook.models import Page
from search.calibration.reader_fit import FIGURES, RollbackError, roll_back
from search.calibration.status import calibration_failed, calibration_queued, calibration_status
from search.embedding.embedders import active_model_name
from search.models import AskLog, Chunk, DecisionPolicy, IndexState, LexiconWord, QuoteRankerFit, VerifiedAnswer
from search.services import index_enqueue_pages


def index_overview() -> dict[str, object]:
    """Counts shown on the index status page."""
    model = active_model_name()
    published = Page.objects.published()
    states = IndexState.objects.filter(page__in=published)
    current = Q(revision_id=F("page__published_revision_id"))
    return {
        "model": model or "(embeddings off: keyword search only)",
        "published": published.count(),
        "indexed": states.filter(current, status=IndexState.Status.INDEXED, embedding_model=model).count(),
        "pending": states.filter(status=IndexState.Status.PENDING).count(),
        "failed": states.filter(status=IndexState.Status.FAILED).count(),
        "stale": states.filter(~current).count(),
        # Templates are never indexed (search/indexing/pipeline.py): counted apart, not as missing.
        "missing": published.filter(index_state__isnull=True, is_template=False).count(),
        "templates": published.filter(is_template=True).count(),
        "chunks": Chunk.objects.count(),
        "embedded_chunks": Chunk.objects.filter(embedding__isnull=False, embedding_model=model).count(),
        "other_model_chunks": Chunk.objects.exclude(embedding_model=model).exclude(embedding_model="").count(),
        "lexicon": ", ".join(
            f"{row['language']}: {row['n']}"
            for row in LexiconWord.objects.filter(model=model)
            .values("language")
            .annotate(n=Count("id"))
            .order_by("language")
        )
        or "(not built: one language only, embeddings off, or the sweep has not run yet)",
        "decisions": _decisions_state(model),
        "calibration": calibration_status(model),
    }


def _decisions_state(model: str) -> str:
    """Where the serving model's decisions come from, and where its calibration stands
    (search/calibration/status.py)."""
    return calibration_status(model).text


@admin.register(DecisionPolicy)
class DecisionPolicyAdmin(admin.ModelAdmin):
    """Each embedding model's fitted decisions and fit report: read only (`manage.py calibrate` fits them,
    the daily refit from readers' labels refits the answer decision); a refit can be rolled back."""

    list_display = ("model", "fitted_at", "readers_refit", "can_roll_back")
    readonly_fields = (
        "model",
        "format_version",
        "readers_before_after",
        "decisions",
        "report",
        "previous",
        "fitted_at",
    )
    actions = ("roll_back_selected",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_rollback_permission(self, request):
        return request.user.is_superuser

    @admin.display(description=gettext_lazy("Refit from readers"))
    def readers_refit(self, obj: DecisionPolicy) -> str:
        readers = (obj.report or {}).get("readers")
        return readers.get("fitted_at", "") if isinstance(readers, dict) else "—"

    @admin.display(description=gettext_lazy("Previous fit kept"), boolean=True)
    def can_roll_back(self, obj: DecisionPolicy) -> bool:
        return bool((obj.previous or {}).get("decisions"))

    @admin.display(description=gettext_lazy("Readers' labels: shipped material before / after"))
    def readers_before_after(self, obj: DecisionPolicy) -> str:
        readers = (obj.report or {}).get("readers")
        if not isinstance(readers, dict) or "shipped_material" not in readers:
            return "—"
        shipped = readers["shipped_material"]
        rows = format_html_join(
            "",
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (name, shipped["before"].get(name), shipped["after"].get(name), shipped["tolerance"].get(name, "—"))
                for name in FIGURES
            ),
        )
        return format_html(
            "<table><tr><th>{}</th><th>{}</th><th>{}</th><th>{}</th></tr>{}</table><p>{}: {}</p>",
            _("figure"),
            _("before"),
            _("after"),
            _("tolerance"),
            rows,
            _("labels"),
            readers.get("labels"),
        )

    @admin.action(description=gettext_lazy("Roll back to the previous fit"), permissions=["rollback"])
    def roll_back_selected(self, request, queryset):
        for row in queryset:
            try:
                roll_back(row)
            except RollbackError as exc:
                self.message_user(request, str(exc), messages.WARNING)
            else:
                self.message_user(request, _("%(model)s: rolled back.") % {"model": row.model}, messages.SUCCESS)


@admin.register(IndexState)
class IndexStateAdmin(admin.ModelAdmin):
    list_display = ["page", "status", "revision", "chunk_count", "embedded_count", "embedding_model", "updated_at"]
    list_filter = ["status", "embedding_model", "page__space"]
    search_fields = ["page__title", "page__ref", "error"]
    readonly_fields = [f.name for f in IndexState._meta.fields]
    actions = ["reindex_selected"]
    change_list_template = "admin/search/indexstate/change_list.html"

    def has_add_permission(self, request):
        return False

    @admin.action(description=gettext_lazy("Reindex selected pages"))
    def reindex_selected(self, request, queryset):
        count = index_enqueue_pages(Page.objects.published().filter(index_state__in=queryset))
        queued = ngettext("%d page queued for reindexing.", "%d pages queued for reindexing.", count) % count
        self.message_user(request, queued, messages.SUCCESS)

    def get_urls(self):
        extra = [
            path("reembed-all/", self.admin_site.admin_view(self.reembed_all_view), name="search_reembed_all"),
            path("calibrate/", self.admin_site.admin_view(self.calibrate_view), name="search_calibrate"),
        ]
        return extra + super().get_urls()

    def changelist_view(self, request, extra_context=None):
        extra_context = {**(extra_context or {}), "overview": index_overview()}
        return super().changelist_view(request, extra_context)

    def reembed_all_view(self, request):
        """Re-embed everything: old vectors keep serving keyword+vector search until each page is redone."""
        if request.method == "POST":
            enqueue("search.tasks.reindex_all")
            self.message_user(request, _("Re-embedding of every page queued."), messages.SUCCESS)
        return TemplateResponse(request, "admin/search/reembed_done.html", {"overview": index_overview()})

    def calibrate_view(self, request):
        """Queue the calibration of the configured model (POST only; it fits only a model with no policy)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_change_permission(request):
            raise PermissionDenied
        model = active_model_name()
        if not model:
            self.message_user(request, _("Embeddings are off: there is no model to calibrate."), messages.WARNING)
        elif not calibration_status(model).can_run:
            self.message_user(request, _("%(model)s already has a policy.") % {"model": model}, messages.INFO)
        else:
            calibration_queued(model)  # before: an eager run records its own end
            try:
                enqueue("search.tasks.calibrate_model", model)
            except OperationalError as exc:
                calibration_failed(model, f"could not queue it: {exc}")
                self.message_user(
                    request, _("Could not queue the calibration: %(error)s") % {"error": exc}, messages.ERROR
                )
            else:
                self.message_user(
                    request,
                    _("Calibration of %(model)s queued: a worker runs it.") % {"model": model},
                    messages.SUCCESS,
                )
        return HttpResponseRedirect(reverse("admin:search_indexstate_changelist"))


@admin.register(Chunk)
class ChunkAdmin(admin.ModelAdmin):
    list_display = ["page", "ordinal", "heading", "anchor", "language", "embedding_model", "embedded_at"]
    list_filter = ["language", "embedding_model"]
    search_fields = ["page__title", "page__ref", "heading"]
    readonly_fields = [
        "page",
        "revision",
        "ordinal",
        "heading",
        "anchor",
        "text",
        "language",
        "content_hash",
        "embedding_model",
        "embedded_at",
    ]
    exclude = ["embedding", "search_vector"]

    def has_add_permission(self, request):
        return False

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("page")


@admin.register(AskLog)
class AskLogAdmin(admin.ModelAdmin):
    """Content gaps: questions answered 'no_answer' or rated unhelpful."""

    list_display = ["question", "mode", "helpful", "language", "created_at"]
    list_filter = ["mode", "helpful", "language"]
    search_fields = ["question", "comment"]
    readonly_fields = [f.name for f in AskLog._meta.fields]

    def has_add_permission(self, request):
        return False


@admin.register(QuoteRankerFit)
class QuoteRankerFitAdmin(admin.ModelAdmin):
    """Ask's quote ranker as verified answers refitted it: read only (a task refits it)."""

    list_display = ("model", "in_use", "fitted_at")
    readonly_fields = ("model", "in_use", "weights", "report", "fitted_at")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(VerifiedAnswer)
class VerifiedAnswerAdmin(admin.ModelAdmin):
    """Editors verify answers from Ask and Insights; admins can read and remove them here."""

    list_display = ("question", "kind", "space", "page", "editor", "verified_at")
    list_filter = ("kind", "space")
    search_fields = ("question",)
    readonly_fields = ("kind", "question", "language", "space", "page", "revision", "units", "editor", "verified_at")

    def has_add_permission(self, request):
        return False
