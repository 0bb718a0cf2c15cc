"""The editor's file field without JavaScript: store the files, add their Markdown, keep editing.

On a page that exists the files are its attachments; on New page they wait under the form's draft
token until the page is saved."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest
from django.utils.translation import gettext as _

from handbook.attachments.services import AttachmentRejected, attachment_create
from handbook.forms import PageCreateForm, PageEditForm
from handbook.models import Page, Space


def upload_from_editor(request: HttpRequest, page: Page, form: PageEditForm) -> PageEditForm:
    """Nothing of the page is saved here: the returned form carries the editor's text plus the new links."""
    body = _upload(request, form.cleaned_data["body"], page=page)
    return PageEditForm(initial={**form.cleaned_data, "body": body})


def upload_from_new_page(request: HttpRequest, space: Space, form: PageCreateForm) -> PageCreateForm:
    """The same on New page: the files wait under the form's draft token, nothing else is stored."""
    token = form.cleaned_data["draft_token"]
    if not token:
        messages.error(request, _("This form has expired: reload the page."))
        body = form.cleaned_data["body"]
    else:
        body = _upload(request, form.cleaned_data["body"], page=None, draft_token=token)
    return PageCreateForm(initial={**form.cleaned_data, "body": body}, space=space, user=request.user)


def _upload(request: HttpRequest, body: str, *, page: Page | None, draft_token: str = "") -> str:
    """Store the request's files; returns ``body`` with their Markdown added at the end."""
    inserted = []
    for upload in request.FILES.getlist("file"):
        try:
            attachment = attachment_create(
                page=page, stream=upload, name=upload.name or "", uploaded_by=request.user, draft_token=draft_token
            )
        except AttachmentRejected as rejected:
            for message in rejected.messages:
                messages.error(request, message)
            continue
        inserted.append(attachment.markdown())
    if inserted:
        messages.success(request, _("File uploaded; its link was added at the end of the text."))
    elif not request.FILES:
        messages.error(request, _("Choose a file to upload."))
    if inserted:
        body = body.rstrip("\n") + ("\n\n" if body.strip() else "") + "\n\n".join(inserted) + "\n"
    return body
