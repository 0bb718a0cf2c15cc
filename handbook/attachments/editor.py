"""The editor's file field without JavaScript: store the files, add their Markdown, keep editing."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest
from django.utils.translation import gettext as _

from handbook.attachments.services import AttachmentRejected, attachment_create
from handbook.forms import PageEditForm
from handbook.models import Page


def upload_from_editor(request: HttpRequest, page: Page, form: PageEditForm) -> PageEditForm:
    """Nothing of the page is saved here: the returned form carries the editor's text plus the new links."""
    inserted = []
    for upload in request.FILES.getlist("file"):
        try:
            attachment = attachment_create(page=page, stream=upload, name=upload.name or "", uploaded_by=request.user)
        except AttachmentRejected as rejected:
            for message in rejected.messages:
                messages.error(request, message)
            continue
        inserted.append(attachment.markdown())
    if inserted:
        messages.success(request, _("File uploaded; its link was added at the end of the text."))
    elif not request.FILES:
        messages.error(request, _("Choose a file to upload."))
    body = form.cleaned_data["body"]
    if inserted:
        body = body.rstrip("\n") + ("\n\n" if body.strip() else "") + "\n\n".join(inserted) + "\n"
    return PageEditForm(initial={**form.cleaned_data, "body": body})
