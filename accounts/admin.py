from django.contrib import admin

from accounts.models import PersonalToken


@admin.register(PersonalToken)
class PersonalTokenAdmin(admin.ModelAdmin):
    list_display = ["name", "user", "prefix", "scope", "created_at", "expires_at", "revoked_at", "last_used_at"]
    list_filter = ["scope"]
    search_fields = ["name", "user__username", "prefix"]
    readonly_fields = ["token_hash", "prefix", "created_at", "last_used_at"]
