"""Deleting a group in the permission matrix (``tests/security/matrix.py``): restrictions fail closed.

A superuser tries to delete every group that restricts a page of the world, from the admin's
delete page, its "delete selected" action and the ORM; each is refused and who reads what is
unchanged. (Before: the cascade removed the restriction rows and the page opened to its space.)
Findings are ``(path, detail)`` pairs; ``matrix.py`` turns them into its ``Leak`` records.
"""

from __future__ import annotations

from typing import Any


def group_deletion_findings(world: Any, client: Any, superuser: Any) -> list[tuple[str, str]]:
    from django.contrib.auth.models import Group
    from django.db import transaction
    from django.db.models import ProtectedError

    from handbook.models import Page

    found: list[tuple[str, str]] = []
    names = sorted(set().union(*(facts["restricted_to"] for facts in world.pages.values())))
    client.force_login(superuser)
    for group in Group.objects.filter(name__in=names).order_by("name"):
        attempts = [
            (f"/admin/auth/group/{group.pk}/delete/", {"post": "yes"}),
            ("/admin/auth/group/", {"action": "delete_selected", "_selected_action": [group.pk], "post": "yes"}),
        ]
        for url, data in attempts:
            response = client.post(url, data)
            if response.status_code != 200 or b"protected" not in response.content:
                found.append(("admin.group_delete", f"{group.name}: {url} answered {response.status_code}"))
        try:
            with transaction.atomic():
                group.delete()
            found.append(("orm.group_delete", f"{group.name} deleted"))
        except ProtectedError:
            pass
        if not Group.objects.filter(pk=group.pk).exists():
            found.append(("group_delete", f"{group.name} is gone"))
    for username, user in world.users.items():
        actual = set(Page.objects.visible_to(user).filter(id__in=world.pages).values_list("id", flat=True))
        expected = world.expected_visible(username)
        if actual != expected:
            found.append(("group_delete.visible_to", f"{username}: got {sorted(actual)} expected {sorted(expected)}"))
    return found
