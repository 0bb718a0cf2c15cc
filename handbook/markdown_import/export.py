"""A space as a zip of Markdown: every published page with front matter, its attachments beside it,
links between pages and to attachments made relative, so importing the zip again rebuilds the space.

The zip holds what its caller may read (``Page.objects.visible_to``) and nothing else: editing a
space does not mean reading its restricted pages. A page left out leaves no trace: no file, no
folder named after it, no attachment, and a link to it (or to a file of it) becomes the link's text,
with no address; a link to a hidden page reads the same as one to a missing page.

A restricted page carries its restriction in its front matter (``restricted_to: [group, …]``, the
groups' names; absent for other pages), so that importing the zip restricts it again
(``restrictions.py``). The names are written for those who are shown them in the handbook: the
space's editors (the Export button is theirs) and ``export_space`` without ``--user``; a zip made
``--user`` someone who only reads the space names no group, as the page shows them none.
"""

from __future__ import annotations

import contextlib
import posixpath
import re
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import IO, Any

import yaml
from django.db.models import QuerySet

from handbook.attachment_models import Attachment
from handbook.markdown_import import export_parts
from handbook.markdown_import.links import UNLINK, link_targets, rewrite_targets
from handbook.markdown_import.restrictions import KEY as RESTRICTION_KEY
from handbook.models import Page, SlugRedirect, Space
from handbook.permissions import can_edit_space

_PAGE_URL = re.compile(r"^/spaces/(?P<space>[\w-]+)/(?P<slug>[\w-]+)/?(?P<anchor>#.*)?$")
# Any other address under a space or page: its history, revisions, the space itself.
_SPACE_PATH = re.compile(r"^/spaces/(?P<space>[\w-]+)(?:/(?P<slug>[\w-]*))?")
_ATTACHMENT_URL = re.compile(r"^/attachments/(?P<id>[0-9a-fA-F-]{32,36})(?:/[^#?]*)?$")


def _paths(pages: list[Page]) -> dict[int, PurePosixPath]:
    """A page with children becomes ``slug/index.md`` (its children inside), any other ``slug.md``."""
    by_id = {p.pk: p for p in pages}
    has_children = {p.parent_id for p in pages if p.parent_id in by_id}

    def folder(page: Page, depth: int = 0) -> PurePosixPath:
        parent = by_id.get(page.parent_id) if page.parent_id else None
        if parent is None or depth > 50:
            return PurePosixPath()
        return folder(parent, depth + 1) / parent.slug

    return {
        p.pk: (folder(p) / p.slug / "index.md") if p.pk in has_children else folder(p) / f"{p.slug}.md" for p in pages
    }


def _relative(target: PurePosixPath, source: PurePosixPath) -> str:
    return posixpath.relpath(target.as_posix(), source.parent.as_posix() or ".")


def _readable(user: Any) -> QuerySet[Page]:
    """Pages an export for ``user`` may show or link to; ``user=None``: every published page
    (``manage.py export_space`` without ``--user``, run by whoever runs the server)."""
    return Page.objects.published() if user is None else Page.objects.visible_to(user)


@dataclass
class _Targets:
    """Where the page and attachment links of the exported bodies lead, among what the reader may read."""

    pages: dict[tuple[str, str], int]  # (space slug, page slug or old slug) → page id
    spaces: set[str]  # slugs of the spaces the reader may see
    files: set[str]  # attachment ids (hex)

    def hidden_path(self, match: re.Match[str]) -> bool:
        """An address under a space the reader cannot see, or under a page they cannot read
        ("_"-names are the space's own views: ``/spaces/hr/_links/``)."""
        space, slug = match.group("space"), match.group("slug") or ""
        return space not in self.spaces or bool(slug and not slug.startswith("_") and (space, slug) not in self.pages)


def _link_targets(bodies: list[str], user: Any) -> _Targets:
    addresses: set[tuple[str, str]] = set()
    file_ids: set[uuid.UUID] = set()
    for body in bodies:
        for target in link_targets(body):
            if match := _SPACE_PATH.match(target):
                addresses.add((match.group("space"), match.group("slug") or ""))
            elif match := _ATTACHMENT_URL.match(target):
                with contextlib.suppress(ValueError):
                    file_ids.add(uuid.UUID(match.group("id")))
    readable = _readable(user)
    slugs = {slug for _space, slug in addresses}
    # The permission filter is the SQL one; Python only pairs the rows found with the addresses.
    found = readable.filter(slug__in=slugs).values_list("space__slug", "slug", "pk")
    pages = {(space, slug): pk for space, slug, pk in found if (space, slug) in addresses}
    old = SlugRedirect.objects.filter(page_slug__in=slugs, page__in=readable)
    for space, slug, pk in old.values_list("space_slug", "page_slug", "page_id"):
        if (space, slug) in addresses:
            pages.setdefault((space, slug), pk)
    files = Attachment.objects.filter(pk__in=file_ids, page__in=readable).values_list("id", flat=True)
    spaces = Space.objects.all() if user is None else Space.objects.visible_to(user)
    seen = spaces.filter(slug__in={space for space, _slug in addresses}).values_list("slug", flat=True)
    return _Targets(pages=pages, spaces=set(seen), files={file_id.hex for file_id in files})


def space_export(space: Space, out: IO[bytes], *, user: Any) -> dict[str, int]:
    """Write the zip of what ``user`` may read of ``space`` to ``out`` (``user=None``: every published
    page); returns counts of pages and attachments written."""
    pages = list(
        _readable(user)
        .filter(space=space)
        .select_related("published_revision")
        .prefetch_related("restricted_to_groups")
        .order_by("pk")
    )
    paths = _paths(pages)
    with_restrictions = user is None or can_edit_space(user, space)
    targets = _link_targets([p.body for p in pages], user)
    attachments: dict[str, PurePosixPath] = {}  # attachment id (hex) → path in the zip
    files: list[tuple[Attachment, PurePosixPath]] = []
    # Only the exported pages' files: an attachment is readable exactly when its page is.
    for attachment in Attachment.objects.filter(page__in=pages).order_by("page_id", "created_at"):
        page_path = paths[attachment.page_id or 0]  # always set: filtered by page, no draft's file
        folder = page_path.parent / f"{page_path.stem if page_path.stem != 'index' else '_'}.files"
        name, n = attachment.original_name, 1
        while folder / name in attachments.values():
            n += 1
            stem, dot, ext = attachment.original_name.rpartition(".")
            name = f"{stem}-{n}.{ext}" if dot else f"{attachment.original_name}-{n}"
        attachments[attachment.id.hex] = folder / name
        files.append((attachment, folder / name))

    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for page in pages:
            path = paths[page.pk]

            def relink(target: str, path: PurePosixPath = path) -> str | None:
                # In the zip: a relative path. Readable elsewhere in the handbook: kept as written.
                # Anything else (hidden, draft, deleted, missing alike): the link becomes its text.
                if match := _PAGE_URL.match(target):
                    linked = targets.pages.get((match.group("space"), match.group("slug")))
                    if linked is None:
                        return UNLINK
                    if linked in paths:
                        return _relative(paths[linked], path) + (match.group("anchor") or "")
                elif match := _SPACE_PATH.match(target):
                    return UNLINK if targets.hidden_path(match) else None
                elif match := _ATTACHMENT_URL.match(target):
                    file_id = match.group("id").replace("-", "").lower()
                    if file_id in attachments:
                        return _relative(attachments[file_id], path)
                    if file_id not in targets.files:
                        return UNLINK
                return None

            revision = page.published_revision
            meta: dict[str, Any] = {
                "title": page.title,
                "language": page.language,
                "revision": revision.number if revision else None,
                "updated": page.updated_at.isoformat(timespec="seconds"),
            }
            restricted_to = sorted(group.name for group in page.restricted_to_groups.all())
            if restricted_to and with_restrictions:  # only a restricted page says so: see restrictions.py
                meta[RESTRICTION_KEY] = restricted_to
            front = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False)
            archive.writestr(path.as_posix(), f"---\n{front}---\n\n{rewrite_targets(page.body, relink)}")
        for attachment, file_path in files:
            try:
                with attachment.file.open("rb") as stream:
                    archive.writestr(file_path.as_posix(), stream.read())
            except OSError:
                continue  # a file lost from storage: the page still exports
        for part in export_parts.registered():
            for name, data in part(space, pages, user):
                archive.writestr(name, data)
    return {"pages": len(pages), "attachments": len(files)}
