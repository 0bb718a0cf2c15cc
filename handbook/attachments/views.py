"""Upload (editors of the page; before a page exists, editors of its space) and download (readers
of the page, checked on every request; a draft attachment only by its uploader)."""

from __future__ import annotations

import uuid

from django.contrib.auth.decorators import login_required
from django.db.models import Q, QuerySet
from django.http import FileResponse, Http404, HttpRequest, HttpResponse, HttpResponseNotModified, JsonResponse
from django.http.response import HttpResponseBase
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from handbook.attachment_models import Attachment
from handbook.attachments.services import AttachmentRejected, attachment_create, is_draft_token
from handbook.lookups import editable_page, editable_space
from handbook.models import Page

# Served with its own policy: an SVG or a PDF opened from the handbook's origin
# runs no script and loads nothing (sandbox), whatever it contains.
ATTACHMENT_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox"
# Shown in the page (images) or opened by the browser's viewer (PDF); everything else is downloaded.
INLINE_TYPES = {"image/png", "image/jpeg", "image/gif", "image/webp", "image/svg+xml", "application/pdf"}


def readable_attachments(user: object) -> QuerySet[Attachment]:
    """Attachments of pages the user may read, or edit (an editor previews a draft's images), and the
    user's own files waiting for a page not saved yet."""
    pages = Page.objects.visible_to(user).values("id")
    drafts = Page.objects.editable_by(user).values("id")
    readable = Q(page_id__in=pages) | Q(page_id__in=drafts)
    if getattr(user, "is_authenticated", False):
        # Never for a pk of None: the ORM reads that as "uploader deleted", whose waiting files are nobody's.
        readable |= Q(page__isnull=True, uploaded_by_id=getattr(user, "pk", None))
    return Attachment.objects.filter(readable)


@login_required
@require_GET
def attachment_download(request: HttpRequest, attachment_id: uuid.UUID, filename: str = "") -> HttpResponseBase:
    # The page's permission is read again on every request; a hidden page's
    # attachment is a 404, the same answer as an id that does not exist.
    attachment = readable_attachments(request.user).filter(pk=attachment_id).first()
    if attachment is None:
        raise Http404
    etag = f'"{attachment.sha256 or attachment.pk.hex}"'
    if request.headers.get("If-None-Match") == etag:
        response: HttpResponseBase = HttpResponseNotModified()
    else:
        try:
            stream = attachment.file.open("rb")
        except (FileNotFoundError, OSError) as exc:
            raise Http404 from exc
        response = FileResponse(
            stream,
            content_type=attachment.content_type,
            as_attachment=attachment.content_type not in INLINE_TYPES,
            filename=attachment.original_name,
        )
    response["ETag"] = etag
    # Private, and checked again each time: a revoked reader loses access on the next request.
    response["Cache-Control"] = "private, no-cache"
    response["Content-Security-Policy"] = ATTACHMENT_CSP
    return response


@login_required
@require_POST
def attachment_upload(request: HttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    """Upload one or more files (``file`` fields); answers JSON for the editor's script."""
    page = editable_page(request.user, space_slug, page_slug)
    return _store(request, page=page)


@login_required
@require_POST
def draft_attachment_upload(request: HttpRequest, space_slug: str) -> HttpResponse:
    """Upload into a New page form before its first save: whoever may create pages in the space.

    The files wait under the form's draft token, readable by the uploader alone, until the page is saved.
    """
    editable_space(request.user, space_slug)
    token = request.POST.get("draft_token", "")
    if not is_draft_token(token):
        return JsonResponse({"error": _("This form has expired: reload the page.")}, status=400)
    return _store(request, page=None, draft_token=token)


def _store(request: HttpRequest, *, page: Page | None, draft_token: str = "") -> HttpResponse:
    files = request.FILES.getlist("file")
    if not files:
        return JsonResponse({"error": _("Choose a file to upload.")}, status=400)
    stored, errors = [], []
    for upload in files:
        try:
            attachment = attachment_create(
                page=page, stream=upload, name=upload.name or "", uploaded_by=request.user, draft_token=draft_token
            )
        except AttachmentRejected as rejected:
            errors.extend(rejected.messages)
            continue
        stored.append(
            {"name": attachment.original_name, "url": attachment.get_absolute_url(), "markdown": attachment.markdown()}
        )
    return JsonResponse({"attachments": stored, "errors": errors}, status=400 if errors and not stored else 200)
