"""The space export in the permission matrix (``tests/security/matrix.py``).

A zip of a space, from its "Export" button (editors) or ``manage.py export_space --user`` (anyone
who reads the space), holds exactly the pages of that space its caller may read and those pages'
files: every other page's canary, file and link target stays out. Findings are ``(path, detail)``
pairs; ``matrix.py`` turns them into its ``Leak`` records.
"""

from __future__ import annotations

import io
import tempfile
import zipfile
from pathlib import Path
from typing import Any


def file_canary(world: Any, page_id: int) -> str:
    # No "canary" inside: a page canary must not be found in a file canary by accident.
    return f"attached{world.seed}y{page_id}qz"


def attach_and_cross_link(world: Any) -> None:
    """One file per page (its content a canary); each published page then links to every page of
    the world and to every file (a hidden page's slug holds its title's canary, so a link left
    pointing at it would show in the zip)."""
    from handbook.attachments.services import attachment_create
    from handbook.models import Page
    from handbook.services import page_save

    pages = {p.pk: p for p in Page.objects.filter(pk__in=world.pages).select_related("space")}
    files = {
        pid: attachment_create(page=page, stream=io.BytesIO(file_canary(world, pid).encode()), name="notes.txt")
        for pid, page in pages.items()
    }
    links = "\n".join(
        f"- [see also](/spaces/{page.space.slug}/{page.slug}/) and [its notes]({files[pid].get_absolute_url()})"
        for pid, page in pages.items()
    )
    for pid, page in pages.items():
        facts = world.pages[pid]
        if facts["published"] and not facts["deleted"]:
            page_save(page=page, title=page.title, body=f"{page.body}\n\n{links}\n")
    world.attachment_ids = {pid: attachment.id.hex for pid, attachment in files.items()}


def _zip_text(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return "\n".join(f"{name}\n{archive.read(name).decode(errors='replace')}" for name in archive.namelist())


def zip_findings(world: Any, text: str, allowed: set[int], space: str) -> list[str]:
    """What is wrong with the zip ``text`` of ``space`` for a reader of ``allowed``: a canary, file or
    file address of a page they may not read, or a page of the space that should be in it and is not.
    (A link to a readable page of another space stays as written: its canary, in the slug, may show.)"""
    wanted = {pid for pid in allowed if world.pages[pid]["space"] == space}
    mentioned = {pid for pid in world.pages if world.canary(pid) in text}
    exported = {pid for pid in world.pages if f"title: {world.pages[pid]['title']}\n" in text}
    files = {pid for pid in world.pages if file_canary(world, pid) in text}
    problems = [f"canary of page {pid}, not readable" for pid in sorted(mentioned - allowed)]
    problems += [f"page {pid} exported, not readable here" for pid in sorted(exported - wanted)]
    problems += [f"page {pid} readable but missing" for pid in sorted(wanted - exported)]
    problems += [f"file of page {pid}, not readable here" for pid in sorted(files - wanted)]
    attachment_ids = getattr(world, "attachment_ids", {})
    problems += [f"file of page {pid} missing" for pid in sorted(wanted - files) if pid in attachment_ids]
    flat = text.replace("-", "")
    problems += [
        f"address of page {pid}'s file"
        for pid, hex_id in attachment_ids.items()
        if pid not in allowed and hex_id in flat
    ]
    return problems


def export_findings(world: Any, username: str, client: Any) -> list[tuple[str, str]]:
    """Every space's export, by HTTP and by the command, for one user of the world."""
    from django.core.management import CommandError, call_command

    user = world.users[username]
    allowed = world.expected_visible(username)
    groups = world.memberships[username]
    readable_spaces = world.expected_spaces(username)
    client.force_login(user) if user.is_active else client.logout()
    found: list[tuple[str, str]] = []
    for slug, space in world.spaces.items():
        edits = user.is_active and (user.is_superuser or bool(groups & space["editors"]))
        response = client.get(f"/spaces/{slug}/_export/")
        if edits and response.status_code != 200:
            found.append(("http.export", f"{slug}: editor answered {response.status_code}"))
        elif edits:
            found += [
                ("http.export", f"{slug}: {p}")
                for p in zip_findings(world, _zip_text(response.getvalue()), allowed, slug)
            ]
        elif response.status_code not in (302, 403, 404):
            found.append(("http.export", f"{slug}: non-editor answered {response.status_code}"))
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "space.zip"
            try:
                call_command("export_space", slug, str(out), user=username, stdout=io.StringIO())
            except CommandError:
                if user.is_active and slug in readable_spaces:
                    found.append(("cli.export", f"{slug}: refused a reader of the space"))
                continue
            if not (user.is_active and slug in readable_spaces):
                found.append(("cli.export", f"{slug}: exported for someone who cannot read the space"))
            found += [
                ("cli.export", f"{slug}: {p}") for p in zip_findings(world, _zip_text(out.read_bytes()), allowed, slug)
            ]
    return found
