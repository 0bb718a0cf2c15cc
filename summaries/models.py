"""Page summaries, one per (page, source text, method)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.fitted import FittedThing
from handbook.models import Page, Revision


class Summary(models.Model):
    class Method(models.TextChoices):
        EXTRACTIVE = "extractive", _("Extractive")
        LLM = "llm", _("LLM")

    class Status(models.TextChoices):
        PENDING = "pending", _("Pending")
        READY = "ready", _("Ready")
        FAILED = "failed", _("Failed")

    page = models.ForeignKey(Page, on_delete=models.CASCADE, related_name="summaries")
    revision = models.ForeignKey(Revision, null=True, on_delete=models.SET_NULL, related_name="summaries")
    method = models.CharField(max_length=12, choices=Method.choices)
    text = models.TextField(blank=True)
    key_points = models.JSONField(default=list, blank=True)
    model = models.CharField(max_length=200, blank=True)
    source_hash = models.CharField(max_length=64)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated_at"]
        constraints = [
            models.UniqueConstraint(fields=["page", "source_hash", "method"], name="summary_unique_source_method")
        ]
        verbose_name_plural = "summaries"

    def __str__(self) -> str:
        return f"{self.page_id} {self.method} {self.status}"


class SummaryPick(models.Model):
    """An editor's choice of the units that belong in a page's summary, on one revision.

    ``units`` holds unit addresses (``summaries.units.unit_hash``), never the text: the text is
    the revision's. The pick is shown while the published text is the picked revision's text.
    """

    page = models.OneToOneField(Page, on_delete=models.CASCADE, related_name="summary_pick")
    revision = models.ForeignKey(Revision, on_delete=models.CASCADE, related_name="+")
    units = models.JSONField(default=list)
    editor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    picked_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.page_id} r{self.revision_id} {len(self.units)} units"


class SummaryScorerFit(FittedThing):
    """Sentence weights fitted from editors' picks, with the report admins read.

    ``in_use`` rows choose the summaries of pages nobody picked; without one the shipped
    weights (``summaries/shipped_weights.json``) do. One set of weights serves every embedding model.
    """

    KIND = "summary weights"
    # 2: no "short" flag, and heading depth counted as d/(1+d): a row fitted on the old features is
    # left unread until the next refit (each saved pick queues one).
    FORMAT = 2

    weights = models.JSONField(default=dict)  # {"coef": {feature: weight}, "intercept": float}
    in_use = models.BooleanField(default=False)
    fitted_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-fitted_at", "-pk"]
        get_latest_by = "fitted_at"

    def __str__(self) -> str:
        return f"fit {self.pk} ({'in use' if self.in_use else 'not in use'})"
