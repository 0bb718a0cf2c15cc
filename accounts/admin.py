from django.contrib import admin

from accounts.models import PersonalToken, SSOIdentity


@admin.register(PersonalToken)
class PersonalTokenAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "user",
        "prefix",
        "scope",
        "created_at",
        "expires_at",
        "revoked_at",
        "last_used_at",
        "last_used_ip",
    ]
    list_filter = ["scope"]
    search_fields = ["name", "user__username", "prefix"]
    readonly_fields = ["token_hash", "prefix", "created_at", "last_used_at", "last_used_ip"]


@admin.register(SSOIdentity)
class SSOIdentityAdmin(admin.ModelAdmin):
    """Link an account to a provider account (its next sign-in opens it) or remove the link.

    The subject is the provider's ``sub`` for the person (Keycloak: the user's ID; Entra ID:
    the object id as the app sees it; Google: the account's number): find it in the provider's
    admin, or in the handbook's log of a sign-in.
    """

    list_display = ["user", "issuer", "subject", "created_at", "last_login_at", "refused_at"]
    list_filter = ["issuer"]
    search_fields = ["user__username", "subject"]
    raw_id_fields = ["user"]
    readonly_fields = ["created_at", "last_login_at", "refused_at", "refused_reason"]
