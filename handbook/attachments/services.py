"""Writes for attachments: checks on size and type, then one file through the storage API."""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import unicodedata
import uuid
from pathlib import PurePath
from typing import IO, Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files import File
from django.db import transaction
from django.utils.translation import gettext as _

from handbook.attachment_models import Attachment
from handbook.models import Page

# Extension → the content type it is served with. The type is decided here, from
# the allow-list, never taken from the uploading browser.
ALLOWED_TYPES: dict[str, str] = {
    # images
    "png": "image/png",
    "jpg": "image/jpeg",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
    "svg": "image/svg+xml",
    # documents
    "pdf": "application/pdf",
    "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xls": "application/vnd.ms-excel",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "ppt": "application/vnd.ms-powerpoint",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    "odt": "application/vnd.oasis.opendocument.text",
    "ods": "application/vnd.oasis.opendocument.spreadsheet",
    "odp": "application/vnd.oasis.opendocument.presentation",
    # text
    "txt": "text/plain",
    "csv": "text/csv",
    "md": "text/markdown",
}
MAX_NAME_CHARS = 200
DRAFT_TOKEN = re.compile(r"[0-9a-f]{32}")


class AttachmentRejected(ValidationError):
    """The file was not stored; the message says why, in the user's language."""


def clean_name(name: str) -> str:
    """A file name without folders, control characters or leading dots."""
    name = unicodedata.normalize("NFC", PurePath(name.replace("\\", "/")).name)
    name = "".join(ch for ch in name if unicodedata.category(ch)[0] != "C").strip().lstrip(".")
    stem, dot, ext = name.rpartition(".")
    if dot and len(name) > MAX_NAME_CHARS:
        name = stem[: MAX_NAME_CHARS - len(ext) - 1] + "." + ext
    return name[:MAX_NAME_CHARS] or "file"


def extension(name: str) -> str:
    return name.rpartition(".")[2].lower() if "." in name else ""


def check_file(name: str, size: int) -> str:
    """The content type for an acceptable file; ``AttachmentRejected`` otherwise."""
    ext = extension(name)
    if ext not in ALLOWED_TYPES:
        raise AttachmentRejected(
            _("“%(name)s”: this type of file is not accepted. Accepted: %(types)s.")
            % {"name": name, "types": ", ".join(sorted(ALLOWED_TYPES))},
            code="type",
        )
    limit = settings.ATTACHMENTS_MAX_BYTES
    if size > limit:
        raise AttachmentRejected(
            _("“%(name)s” is too large (%(size)s MB); the limit is %(limit)s MB.")
            % {"name": name, "size": f"{size / 1048576:.1f}", "limit": f"{limit / 1048576:.0f}"},
            code="size",
        )
    if size == 0:
        raise AttachmentRejected(_("“%(name)s” is empty.") % {"name": name}, code="empty")
    return ALLOWED_TYPES[ext]


def _sha256(stream: IO[bytes]) -> str:
    digest = hashlib.sha256()
    stream.seek(0)
    for block in iter(lambda: stream.read(1 << 20), b""):
        digest.update(block)
    stream.seek(0)
    return digest.hexdigest()


def _size(stream: IO[bytes]) -> int:
    stream.seek(0, os.SEEK_END)
    size = stream.tell()
    stream.seek(0)
    return size


def draft_token_new() -> str:
    """A New page form's key for the files pasted into it before the page exists."""
    return secrets.token_hex(16)


def is_draft_token(value: str) -> bool:
    return bool(DRAFT_TOKEN.fullmatch(value or ""))


@transaction.atomic
def attachment_create(
    *,
    page: Page | None,
    stream: IO[bytes],
    name: str,
    uploaded_by: Any = None,
    attachment_id: uuid.UUID | None = None,
    draft_token: str = "",
) -> Attachment:
    """Store ``stream`` as a new attachment of ``page`` (size and type checked first).

    Without a page, the file is a draft attachment: ``draft_token`` and an uploader are required,
    and ``attachments_claim`` gives it its page when the page is saved.
    ``attachment_id`` lets an import write the attachment's address into the page before storing it.
    """
    signed_in = getattr(uploaded_by, "is_authenticated", False)
    if page is None and not (is_draft_token(draft_token) and signed_in):
        raise ValueError("a draft attachment needs a draft token and its uploader")
    name = clean_name(name)
    size = getattr(stream, "size", None) or _size(stream)
    content_type = check_file(name, size)
    attachment = Attachment(
        id=attachment_id or uuid.uuid4(),
        page=page,
        draft_token="" if page is not None else draft_token,
        original_name=name,
        content_type=content_type,
        size=size,
        sha256=_sha256(stream),
        uploaded_by=uploaded_by if signed_in else None,
    )
    attachment.file.save(name, File(stream, name=name), save=False)
    try:
        attachment.save()
    except Exception:
        attachment.file.delete(save=False)  # no orphan file when the row cannot be written
        raise
    return attachment


def attachments_claim(*, page: Page, draft_token: str, uploaded_by: Any) -> int:
    """Give ``page`` the draft attachments its author pasted into its New page form; returns how many.

    Only the author's own drafts under that token: a token copied from someone else's form claims nothing.
    """
    if not is_draft_token(draft_token) or not getattr(uploaded_by, "is_authenticated", False):
        return 0
    drafts = Attachment.objects.filter(page__isnull=True, draft_token=draft_token, uploaded_by=uploaded_by)
    return drafts.update(page=page, draft_token="")
