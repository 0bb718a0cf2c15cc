"""Page summaries, one per (page, source text, method)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

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
