"""The permission matrix's admin checks: every admin page that could name a hidden page or space.

Used by tests/security/test_permission_matrix.py (one world) and test_prove_full.py (full count).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from tests.security.matrix import TOPIC_WORDS, Leak, World, _canaries_in
from tests.security.matrix_groups import group_deletion_findings


def admin_urls(world: World, hidden_pages: set[int], hidden_spaces: set[str]) -> list[str]:
    """Every admin page that could name a hidden page or space, for every registered model.

    Index pages; each changelist (its list filters list spaces), as a raw-id popup, searched by
    a hidden page's ref and by a topic word, and filtered on a hidden space; add forms with a
    raw-id field pre-filled with a hidden page; the autocomplete of every foreign key; the
    change, history and delete forms of every object that belongs to a hidden page or space.
    """
    from django.contrib import admin
    from django.db.models import ForeignKey, ManyToManyField
    from django.urls import reverse

    from handbook.models import Page, Space

    space_ids = dict(Space.objects.filter(slug__in=world.spaces).values_list("slug", "id"))
    hidden_space_ids = [space_ids[slug] for slug in sorted(hidden_spaces)]
    refs = [world.pages[pid]["ref"] for pid in sorted(hidden_pages)]
    registered = admin.site._registry
    urls = ["/admin/"]
    for model, model_admin in registered.items():
        opts = model._meta
        name = f"admin:{opts.app_label}_{opts.model_name}"
        urls.append(reverse("admin:app_list", args=[opts.app_label]))
        changelist = reverse(f"{name}_changelist")
        urls += [changelist, changelist + "?_popup=1&_to_field=id", changelist + "?q=" + TOPIC_WORDS[0]]
        urls += [changelist + "?" + urlencode({"q": ref}) for ref in refs]
        for list_filter in model_admin.list_filter:
            if isinstance(list_filter, str) and list_filter.split("__")[-1] == "space":
                urls += [changelist + f"?{list_filter}__id__exact={pk}" for pk in hidden_space_ids]
        for field_name in model_admin.raw_id_fields:
            urls += [reverse(f"{name}_add") + f"?{field_name}={pid}" for pid in sorted(hidden_pages)]
        for model_field in opts.get_fields():
            if isinstance(model_field, ForeignKey | ManyToManyField) and model_field.related_model in registered:
                query = {"app_label": opts.app_label, "model_name": opts.model_name, "field_name": model_field.name}
                urls.append("/admin/autocomplete/?" + urlencode({**query, "term": TOPIC_WORDS[1]}))
        if model is Page:
            object_ids = list(Page.objects.filter(pk__in=hidden_pages).values_list("pk", flat=True))
        elif model is Space:
            object_ids = hidden_space_ids
        elif any(f.name == "page" and f.related_model is Page for f in opts.get_fields()):
            object_ids = list(model._default_manager.filter(page_id__in=hidden_pages).values_list("pk", flat=True))
        else:
            object_ids = []
        for object_id in object_ids:
            urls += [reverse(f"{name}_{view}", args=[object_id]) for view in ("change", "history", "delete")]
    return list(dict.fromkeys(urls))  # each once: an app's index was listed once per model of the app


def check_admin_case(world: World, username: str, client: Any) -> list[Leak]:
    """Every admin read path for one user who holds every view and change permission of the admin.

    Superusers read every page and space, so nothing they see there can leak: they try to delete
    each restricting group instead, which must be refused with visibility unchanged. Everyone else
    must find no hidden page or space title anywhere in the admin (it admits superusers only).
    """
    from django.contrib import admin
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.models import ContentType

    user = world.users[username]
    if user.is_active and user.is_superuser:
        return [Leak(world.seed, username, "", *found) for found in group_deletion_findings(world, client, user)]
    content_types = ContentType.objects.get_for_models(*admin.site._registry).values()
    user.user_permissions.add(
        *Permission.objects.filter(content_type__in=content_types, codename__regex=r"^(view|change)_")
    )
    expected = world.expected_visible(username) | world.expected_editable(username)
    spaces = world.expected_spaces(username)
    client.force_login(user) if user.is_active else client.logout()
    leaks = []
    for url in admin_urls(world, set(world.pages) - expected, set(world.spaces) - spaces):
        body = client.get(url).content.decode(errors="replace")
        for canary in _canaries_in(body, world, expected, spaces):
            leaks.append(Leak(world.seed, username, "", "http.admin", f"{url}: {canary}"))
    return leaks
