"""Reading sign-in settings from the environment (imported by settings.py: no models here)."""

from __future__ import annotations

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
