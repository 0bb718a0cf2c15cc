"""Personal access tokens: a person's key for the API and the MCP endpoint.

Only a SHA-256 of the token is stored (tokens are 256 random bits, so a plain
hash is enough: there is nothing to brute-force); the first characters are kept
to tell tokens apart in lists. A token acts exactly as its owner: it carries no
permissions of its own, only a scope that narrows what it may call.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class PersonalToken(models.Model):
    class Scope(models.TextChoices):
        READ = "read", _("Read (search, pages, spaces)")
        ASK = "ask", _("Read and ask")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="personal_tokens")
    name = models.CharField(_("name"), max_length=100)
    token_hash = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=16, help_text="The first characters of the token, to recognise it.")
    scope = models.CharField(_("scope"), max_length=8, choices=Scope.choices, default=Scope.READ)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(_("expires"))
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["user", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None and self.expires_at > timezone.now()

    @property
    def can_ask(self) -> bool:
        return self.scope == self.Scope.ASK
