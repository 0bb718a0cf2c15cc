"""A reader's comment on a page, optionally on one of its sections (a heading id)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from handbook.models import Page

# Comments are notes to the page's editors, not a second body of text.
MAX_LENGTH = 2000


class Comment(models.Model):
    # Comments go with their page: read through the page's visibility, deleted with it.
    page = models.ForeignKey(Page, on_delete=models.CASCADE, related_name="comments")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # A heading id of the page's text when written ("" for the whole page); a section renamed
    # since then leaves the comment on the page, its anchor no longer found.
    anchor = models.CharField(_("section"), max_length=300, blank=True)
    body = models.TextField(_("comment"), max_length=MAX_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # Not stored: set on the comments a thread lists (comments/selectors.py), for the templates.
    author_name: str
    resolver_name: str
    section: str
    can_resolve: bool

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [models.Index(fields=["page", "resolved_at"], name="comment_page_open")]
        verbose_name = _("comment")
        verbose_name_plural = _("comments")

    def __str__(self) -> str:
        return f"comment {self.pk} on page {self.page_id}"

    @property
    def is_open(self) -> bool:
        return self.resolved_at is None
