"""Import Markdown from the admin: a zip of the handbook, unpacked safely, then the importer of
``manage.py import_markdown`` on it (``markdown_tree_import``), its report shown.

The zip is refused whole, before anything is written, when a path would leave the folder it is
unpacked in (absolute, ``..``), an entry is a symbolic link or encrypted, or it holds more entries
(files and folders alike: each folder is a ``mkdir``) or more bytes once unpacked than
``MARKDOWN_ZIP_MAX_FILES`` / ``MARKDOWN_ZIP_MAX_MB`` allow. The upload itself is held to
``MARKDOWN_ZIP_MAX_MB`` and the list of entries its end record announces to what that many entries
need, both before ``zipfile`` reads the list (it builds an object per entry, all at once).
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import zipfile
import zlib
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import IO, Any

from django import forms
from django.conf import settings
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.form_fields import model_choice_field
from handbook.markdown_import.importer import markdown_tree_import
from handbook.markdown_import.sources import MARKDOWN_SUFFIXES, ImportReport
from handbook.models import Space
from handbook.permissions import can_admin_space, can_edit_space

_DRIVE = re.compile(r"^[A-Za-z]:")
_MAC_METADATA = "__MACOSX"
# A central directory entry is a fixed header, its path and extra fields: this allowance each leaves
# room for paths of several hundred characters and bounds what ``zipfile`` parses to what the entry limit allows.
_LISTED_BYTES_PER_ENTRY = 1024


class ZipRejected(Exception):
    """The archive cannot be imported; the message says why, for the person who uploaded it."""


def _entry_path(name: str) -> PurePosixPath | None:
    """The entry's path inside the archive, or ``None`` when it would leave the folder."""
    name = name.replace("\\", "/")
    parts = name.split("/")
    if name.startswith("/") or _DRIVE.match(name) or "\x00" in name or ".." in parts:
        return None
    return PurePosixPath(*[p for p in parts if p not in ("", ".")])


def _check_before_reading(stream: IO[bytes], max_files: int, max_bytes: int) -> None:
    """Refuse an upload larger than the limit, or whose list of entries is longer than the entry
    limit needs, before ``ZipFile`` reads that list."""
    stream.seek(0, os.SEEK_END)
    if stream.tell() > max_bytes:
        raise ZipRejected(_("The archive is larger than %(limit)s MB.") % {"limit": max_bytes >> 20})
    stream.seek(0)
    # The end record, read as ``ZipFile`` reads it (zip64 included); its size of the list is what
    # ``ZipFile`` then reads and parses. ``None``: not a zip, which ``ZipFile`` will say.
    # (A private function, unchanged since Python 2; the tests would see it go.)
    end = zipfile._EndRecData(stream)  # type: ignore[attr-defined]
    stream.seek(0)
    listed_bytes = end[zipfile._ECD_SIZE] if end is not None else 0  # type: ignore[attr-defined]
    if listed_bytes > max_files * _LISTED_BYTES_PER_ENTRY:
        message = _("The archive lists more than %(limit)s entries (files and folders), or paths too long.")
        raise ZipRejected(message % {"limit": max_files})


def _checked_entries(archive: zipfile.ZipFile, max_files: int, max_bytes: int) -> list[zipfile.ZipInfo]:
    listed = archive.infolist()
    if len(listed) > max_files:  # every entry counts: a folder is a mkdir, a skipped one was parsed
        raise ZipRejected(
            _("The archive holds %(count)s entries (files and folders); the limit is %(limit)s.")
            % {"count": len(listed), "limit": max_files}
        )
    entries, size = [], 0
    for entry in listed:
        rel = _entry_path(entry.filename)
        if rel is None:
            raise ZipRejected(
                _("“%(name)s”: a path in the archive must stay inside it (no absolute path, no “..”).")
                % {"name": entry.filename}
            )
        if rel.parts[:1] == (_MAC_METADATA,) or not rel.parts:
            continue
        if stat.S_ISLNK(entry.external_attr >> 16):
            raise ZipRejected(_("“%(name)s” is a symbolic link: links are not accepted.") % {"name": entry.filename})
        if entry.flag_bits & 0x1:
            message = _("“%(name)s” is encrypted: encrypted archives are not accepted.")
            raise ZipRejected(message % {"name": entry.filename})
        if not entry.is_dir():
            size += entry.file_size
        entries.append(entry)
    if size > max_bytes:
        raise ZipRejected(_("The archive is larger than %(limit)s MB once unpacked.") % {"limit": max_bytes >> 20})
    if not any(PurePosixPath(e.filename).suffix.lower() in MARKDOWN_SUFFIXES for e in entries if not e.is_dir()):
        raise ZipRejected(_("The archive holds no Markdown file (.md)."))
    return entries


def unpack_zip(stream: IO[bytes], dest: Path, *, max_files: int, max_bytes: int) -> Path:
    """Unpack the zip ``stream`` into the empty folder ``dest``; the folder to import: the archive's
    only top folder when everything is inside one (as a zip of a folder is), else ``dest``."""
    root = dest.resolve()
    try:
        _check_before_reading(stream, max_files, max_bytes)
        with zipfile.ZipFile(stream) as archive:
            entries = _checked_entries(archive, max_files, max_bytes)
            written = 0
            for entry in entries:
                rel = _entry_path(entry.filename)
                target = (root / str(rel)).resolve()
                if not target.is_relative_to(root):  # checked above; kept as the last word
                    raise ZipRejected(_("“%(name)s”: a path in the archive must stay inside it.") % {"name": rel})
                if entry.is_dir():
                    target.mkdir(parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(parents=True, exist_ok=True)
                with archive.open(entry) as source, open(target, "xb") as out:
                    while chunk := source.read(1 << 20):
                        written += len(chunk)
                        if written > max_bytes:  # the sizes the archive declares can lie
                            raise ZipRejected(
                                _("The archive is larger than %(limit)s MB once unpacked.") % {"limit": max_bytes >> 20}
                            )
                        out.write(chunk)
    except ZipRejected:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError, NotImplementedError, ValueError):
        raise ZipRejected(_("This file is not a readable zip archive.")) from None
    except OSError:  # the same name twice, a file where a folder is, …
        message = _("This archive cannot be unpacked (an entry appears twice or clashes with a folder).")
        raise ZipRejected(message) from None
    tops = list(root.iterdir())
    return tops[0] if len(tops) == 1 and tops[0].is_dir() else root


def import_zip(
    stream: IO[bytes],
    *,
    space: Space,
    viewer_groups: Iterable[Group] = (),
    editor_groups: Iterable[Group] = (),
    delete_missing: bool = False,
    author: Any = None,
) -> ImportReport:
    """Unpack, then the importer of ``manage.py import_markdown``; ``ZipRejected`` before any change."""
    with tempfile.TemporaryDirectory(prefix="markdown-zip-") as tmp:
        root = unpack_zip(
            stream, Path(tmp), max_files=settings.MARKDOWN_ZIP_MAX_FILES, max_bytes=settings.MARKDOWN_ZIP_MAX_BYTES
        )
        space.viewer_groups.add(*viewer_groups)  # as the command does: groups are only added
        space.editor_groups.add(*editor_groups)
        return markdown_tree_import(root, space=space, delete_missing=delete_missing, author=author)


class MarkdownZipForm(forms.Form):
    archive = forms.FileField(
        label=gettext_lazy("Zip of Markdown files"),
        help_text=gettext_lazy(
            "One page per Markdown file, the folders as the page tree; images and files they link to become "
            "attachments. Importing the same zip again updates only the pages that changed."
        ),
    )
    space = forms.ModelChoiceField(queryset=Space.objects.none(), label=gettext_lazy("Space"))
    viewer_groups = forms.ModelMultipleChoiceField(
        queryset=Group.objects.order_by("name"), required=False, label=gettext_lazy("Add reader groups")
    )
    editor_groups = forms.ModelMultipleChoiceField(
        queryset=Group.objects.order_by("name"), required=False, label=gettext_lazy("Add editor groups")
    )
    delete_missing = forms.BooleanField(required=False, label=gettext_lazy("Archive pages whose file disappeared"))

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        model_choice_field(self, "space").queryset = Space.objects.editable_by(user).order_by("title")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        space = data.get("space")
        groups = data.get("viewer_groups") or data.get("editor_groups")
        if space is not None and groups and not can_admin_space(self.user, space):
            raise ValidationError(_("Only the space's administrators may add groups to it."))
        return data


def markdown_zip_view(model_admin: Any, request: HttpRequest, object_id: str | None = None) -> HttpResponse:
    initial: dict[str, Any] = {}
    if object_id is not None:  # from a space's page: that space, if the user may edit it (404 otherwise)
        initial["space"] = get_object_or_404(Space.objects.editable_by(request.user), pk=object_id)
    form = MarkdownZipForm(request.POST or None, request.FILES or None, user=request.user, initial=initial)
    report = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        if not can_edit_space(request.user, data["space"]):  # the choices already say so
            raise PermissionDenied
        try:
            report = import_zip(
                data["archive"],
                space=data["space"],
                viewer_groups=data["viewer_groups"],
                editor_groups=data["editor_groups"],
                delete_missing=data["delete_missing"],
                author=request.user,
            )
        except ZipRejected as rejected:
            form.add_error("archive", str(rejected))
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Import Markdown (zip)"),
        "opts": Space._meta,
        "form": form,
        "report": report,
        "space": form.cleaned_data.get("space") if report is not None else initial.get("space"),
    }
    return TemplateResponse(request, "admin/handbook/space/import_markdown.html", context)


class MarkdownZipImportMixin:
    """Adds "Import Markdown (zip)" to a ``ModelAdmin`` of spaces (its list and each space's page)."""

    admin_site: Any

    def get_urls(self) -> list[Any]:
        admitted = self.admin_site.admin_view(self.import_markdown_view)

        def view(request: HttpRequest, object_id: str | None = None) -> HttpResponse:
            # Signed-in accounts the admin does not admit get 403, not the admin's login page.
            if request.user.is_authenticated and not self.admin_site.has_permission(request):
                raise PermissionDenied
            return admitted(request, object_id)

        return [
            path("import-markdown/", view, name="handbook_space_import_markdown"),
            path("<path:object_id>/import-markdown/", view, name="handbook_space_import_markdown_into"),
            *super().get_urls(),  # type: ignore[misc]
        ]

    def import_markdown_view(self, request: HttpRequest, object_id: str | None = None) -> HttpResponse:
        return markdown_zip_view(self, request, object_id)
