"""A space as a zip of Markdown: every published page with front matter, its attachments beside it,
links between pages and to attachments made relative, so importing the zip again rebuilds the space."""

from __future__ import annotations

import posixpath
import re
import zipfile
from pathlib import PurePosixPath
from typing import IO

import yaml

from handbook.attachments.models import Attachment
from handbook.markdown_import.links import rewrite_targets
from handbook.models import Page, Space

_PAGE_URL = re.compile(r"^/spaces/(?P<space>[\w-]+)/(?P<slug>[\w-]+)/?(?P<anchor>#.*)?$")
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


def space_export(space: Space, out: IO[bytes]) -> dict[str, int]:
    """Write the zip to ``out``; returns counts of pages and attachments written."""
    pages = list(Page.objects.filter(space=space).published().select_related("published_revision").order_by("pk"))
    paths = _paths(pages)
    by_slug = {p.slug: p for p in pages}
    attachments: dict[str, PurePosixPath] = {}  # attachment id (hex) → path in the zip
    files: list[tuple[Attachment, PurePosixPath]] = []
    for attachment in Attachment.objects.filter(page__in=pages).order_by("page_id", "created_at"):
        page_path = paths[attachment.page_id]
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
                if match := _PAGE_URL.match(target):
                    linked = by_slug.get(match.group("slug")) if match.group("space") == space.slug else None
                    if linked is not None:
                        return _relative(paths[linked.pk], path) + (match.group("anchor") or "")
                elif match := _ATTACHMENT_URL.match(target):
                    file_path = attachments.get(match.group("id").replace("-", "").lower())
                    if file_path is not None:
                        return _relative(file_path, path)
                return None

            revision = page.published_revision
            meta = {
                "title": page.title,
                "language": page.language,
                "revision": revision.number if revision else None,
                "updated": page.updated_at.isoformat(timespec="seconds"),
            }
            front = yaml.safe_dump(meta, allow_unicode=True, sort_keys=False)
            archive.writestr(path.as_posix(), f"---\n{front}---\n\n{rewrite_targets(page.body, relink)}")
        for attachment, file_path in files:
            try:
                with attachment.file.open("rb") as stream:
                    archive.writestr(file_path.as_posix(), stream.read())
            except OSError:
                continue  # a file lost from storage: the page still exports
    return {"pages": len(pages), "attachments": len(files)}
