"""Personal access tokens, and the provider identities single sign-on knows people by.

Only a SHA-256 of a token is stored (tokens are 256 random bits, so a plain
hash is enough: there is nothing to brute-force); the first characters are kept
to tell tokens apart in lists. A token acts exactly as its owner: it carries no
permissions of its own, only a scope that narrows what it may call.

A person who signs in through the OpenID Connect provider is known by the
provider's (issuer, subject) pair, never by a name or an e-mail address: those
can be changed or given to someone else, the subject cannot.
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
    # Shown to the owner beside last_used_at, so a use they do not recognise stands out.
    last_used_ip = models.GenericIPAddressField(_("last used from"), null=True, blank=True)

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


class SSOIdentity(models.Model):
    """The account at the provider (``iss``, ``sub``) that signs in as ``user``."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sso_identities")
    issuer = models.CharField(_("issuer"), max_length=255)
    subject = models.CharField(_("subject"), max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)
    last_login_at = models.DateTimeField(_("last sign-in"), null=True, blank=True)
    # A sign-in the provider vouched for but the handbook refused; the person's tokens stop
    # until a later sign-in succeeds (accounts.selectors.sso_allows_tokens).
    refused_at = models.DateTimeField(_("last refused sign-in"), null=True, blank=True)
    refused_reason = models.CharField(max_length=200, blank=True)

    class Meta:
        verbose_name = _("single sign-on identity")
        verbose_name_plural = _("single sign-on identities")
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="accounts_ssoidentity_issuer_subject"),
            # One account at each provider per person: a second one is a second person.
            models.UniqueConstraint(fields=["user", "issuer"], name="accounts_ssoidentity_user_issuer"),
        ]

    def __str__(self) -> str:
        return f"{self.issuer} {self.subject}"
