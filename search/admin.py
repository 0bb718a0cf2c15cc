"""Admin for the people who keep the index healthy (superusers: see handbook/admin.py)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Count, F, Q
from django.template.response import TemplateResponse
from django.urls import path

from core.queues import enqueue
from handbook.models import Page
from search.decisions.policy import shipped_path
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
    }


def _decisions_state(model: str) -> str:
    """Where the serving model's decisions come from (search/decisions/policy.py)."""
    if not model:
        return "(embeddings off: the words decide)"
    row = DecisionPolicy.objects.filter(model=model).first()
    if row is not None and row.decisions:
        questions = row.report.get("calibration_set", {}).get("questions", "?")
        return f"calibrated {row.fitted_at:%Y-%m-%d %H:%M} ({questions} labelled questions)"
    if shipped_path(model).is_file():
        return "shipped with the application"
    return "NONE YET: only pages holding the query's words are results until `manage.py calibrate` runs (queued)"


@admin.register(DecisionPolicy)
class DecisionPolicyAdmin(admin.ModelAdmin):
    """Each embedding model's fitted decisions and fit report: read only (`manage.py calibrate` fits them)."""

    list_display = ("model", "fitted_at")
    readonly_fields = ("model", "decisions", "report", "fitted_at")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


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

    @admin.action(description="Reindex selected pages")
    def reindex_selected(self, request, queryset):
        count = index_enqueue_pages(Page.objects.published().filter(index_state__in=queryset))
        self.message_user(request, f"Queued {count} page(s) for reindexing.", messages.SUCCESS)

    def get_urls(self):
        extra = [
            path("reembed-all/", self.admin_site.admin_view(self.reembed_all_view), name="search_reembed_all"),
        ]
        return extra + super().get_urls()

    def changelist_view(self, request, extra_context=None):
        extra_context = {**(extra_context or {}), "overview": index_overview()}
        return super().changelist_view(request, extra_context)

    def reembed_all_view(self, request):
        """Re-embed everything: old vectors keep serving keyword+vector search until each page is redone."""
        if request.method == "POST":
            enqueue("search.tasks.reindex_all")
            self.message_user(request, "Re-embedding of every page queued.", messages.SUCCESS)
        return TemplateResponse(request, "admin/search/reembed_done.html", {"overview": index_overview()})


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
