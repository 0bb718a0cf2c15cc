"""An approval request: one revision of a page, waiting for a reviewer's decision."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

MAX_COMMENT_CHARS = 2000


class ApprovalRequest(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", _("Waiting for review")
        CHANGES_REQUESTED = "changes", _("Changes requested")
        APPROVED = "approved", _("Approved")
        # A newer revision was saved or published before a decision: this text is no longer the one
        # to decide on (approving it would publish an older text over a newer one).
        SUPERSEDED = "superseded", _("Superseded")

    page = models.ForeignKey("handbook.Page", on_delete=models.CASCADE, related_name="approval_requests")
    revision = models.ForeignKey("handbook.Revision", on_delete=models.CASCADE, related_name="approval_requests")
    state = models.CharField(max_length=12, choices=State.choices, default=State.PENDING)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    requested_at = models.DateTimeField(auto_now_add=True)
    # "Mark as reviewed" (the owners' review) was ticked with Publish: applied when approved.
    mark_reviewed = models.BooleanField(default=False)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    comment = models.TextField(blank=True, max_length=MAX_COMMENT_CHARS)

    class Meta:
        ordering = ["-requested_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["page"], condition=Q(state="pending"), name="approval_one_pending_per_page")
        ]
        indexes = [models.Index(fields=["state", "page"], name="approval_state_page")]
        verbose_name = _("approval request")
        verbose_name_plural = _("approval requests")

    def __str__(self) -> str:
        return f"page {self.page_id} r{self.revision_id}: {self.state}"

    @property
    def is_pending(self) -> bool:
        return self.state == self.State.PENDING
