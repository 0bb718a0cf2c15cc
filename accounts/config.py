"""Reading sign-in settings from the environment (imported by settings.py: no models here)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ImproperlyConfigured


def parse_group_map(raw: str) -> dict[str, list[str]]:
    """'idp-hr=staff|hr-editors, idp-pay=payroll' → {"idp-hr": ["staff", "hr-editors"], "idp-pay": ["payroll"]}."""
    mapping: dict[str, list[str]] = {}
    for item in (part.strip() for part in raw.split(",")):
        if not item:
            continue
        provider, sep, targets = item.partition("=")
        names = [name.strip() for name in targets.split("|") if name.strip()]
        if not sep or not provider.strip() or not names:
            raise ImproperlyConfigured(f"OIDC_GROUP_MAP entry {item!r}: use provider-group=handbook-group[|group…]")
        mapping.setdefault(provider.strip(), []).extend(names)
    return mapping


def check_oidc_settings(values: Mapping[str, Any]) -> None:
    """Refuse to start with a sign-in set-up that cannot work or would trust too much.

    ``values``: the settings module's names (``globals()``), read once OIDC_CLIENT_ID is set.
    """
    if not values["OIDC_ENABLED"]:
        return
    needed = {
        "OIDC_CLIENT_SECRET": "OIDC_RP_CLIENT_SECRET",
        "OIDC_AUTHORIZATION_ENDPOINT": "OIDC_OP_AUTHORIZATION_ENDPOINT",
        "OIDC_TOKEN_ENDPOINT": "OIDC_OP_TOKEN_ENDPOINT",
        "OIDC_USERINFO_ENDPOINT": "OIDC_OP_USER_ENDPOINT",
    }
    missing = [variable for variable, name in needed.items() if not values[name]]
    if missing:
        raise ImproperlyConfigured(
            f"OIDC_CLIENT_ID is set: {', '.join(missing)} must be set too (see README, Single sign-on)."
        )
    if not values["OIDC_ISSUER"]:
        raise ImproperlyConfigured(
            "OIDC_CLIENT_ID is set: OIDC_ISSUER must be set too, to the provider's issuer (the `issuer` of its "
            "/.well-known/openid-configuration); ID tokens from any other issuer are refused "
            "(see README, Single sign-on)."
        )
    if values["OIDC_SYNC_GROUPS"] and not values["OIDC_GROUP_MAP"] and not values["OIDC_GROUP_PREFIX"]:
        raise ImproperlyConfigured(
            "OIDC_SYNC_GROUPS is on but neither OIDC_GROUP_MAP nor OIDC_GROUP_PREFIX is set: say which provider "
            "groups become which handbook groups (OIDC_GROUP_MAP), or the prefix of the provider groups the "
            "handbook may take as they are (OIDC_GROUP_PREFIX), or set OIDC_SYNC_GROUPS=false "
            "(see README, Single sign-on)."
        )
