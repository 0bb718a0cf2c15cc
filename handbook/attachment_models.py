"""An attachment belongs to one page and is readable exactly when that page is.

Before a new page's first save, a file pasted into its editor is a draft attachment: no page yet,
keyed to the New page form's draft token and readable only by its uploader. Saving the page
attaches it (``attachments_claim``); an unclaimed one is removed by the unused-files sweep.
"""

from __future__ import annotations

import re
import uuid

from django.conf import settings
from django.db import models
from django.urls import reverse

_URL_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def attachment_path(instance: Attachment, filename: str) -> str:
    # The id makes the stored name unique and unguessable; the original name stays readable.
    return f"attachments/{instance.id.hex}/{filename}"


class Attachment(models.Model):
    # A random id, not a counter: attachment URLs cannot be enumerated.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    page = models.ForeignKey(
        "handbook.Page", null=True, blank=True, on_delete=models.CASCADE, related_name="attachments"
    )
    # Set while the file waits for its page (no page yet): the New page form's random draft token.
    draft_token = models.CharField(max_length=64, blank=True, default="")
    file = models.FileField(upload_to=attachment_path, max_length=500)
    original_name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=150)
    size = models.PositiveBigIntegerField()
    sha256 = models.CharField(max_length=64, blank=True, help_text="Content hash: re-imports reuse identical files.")
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["page", "original_name", "created_at"]
        indexes = [
            models.Index(fields=["page", "sha256"]),
            models.Index(fields=["draft_token"], condition=models.Q(page__isnull=True), name="attachment_draft"),
        ]
        constraints = [
            # A file belongs to a page, or waits for one under a draft token: never to nothing.
            models.CheckConstraint(
                condition=models.Q(page__isnull=False) | ~models.Q(draft_token=""), name="attachment_page_or_draft"
            ),
        ]

    def __str__(self) -> str:
        return self.original_name

    def get_absolute_url(self) -> str:
        return reverse("attachment_download", kwargs={"attachment_id": self.id, "filename": self.url_name})

    @property
    def url_name(self) -> str:
        """The original name reduced to characters that need no escaping in a URL or in Markdown."""
        return _URL_UNSAFE.sub("-", self.original_name).strip("-.") or "file"

    @property
    def is_image(self) -> bool:
        return self.content_type.startswith("image/")

    def markdown(self) -> str:
        """What the editor inserts: an image for pictures, a link for everything else."""
        label = self.original_name.replace("[", "(").replace("]", ")")
        url = self.get_absolute_url()
        return f"![{label}]({url})" if self.is_image else f"[{label}]({url})"
