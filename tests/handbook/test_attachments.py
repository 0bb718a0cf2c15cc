"""Attachments: upload in the editor, download through the page's permissions, size and type limits."""

from __future__ import annotations

import io
import uuid

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from handbook.attachment_models import Attachment
from handbook.attachments.services import AttachmentRejected, attachment_create
from handbook.markdown import render_markdown
from handbook.services import page_delete, page_set_restrictions
from tests.handbook.conftest import url

pytestmark = pytest.mark.django_db

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.ATTACHMENTS_MAX_BYTES = 1024


def _upload(client, page, name="plan.png", content=PNG):  # type: ignore[no-untyped-def]
    return client.post(url(page, "attachments"), {"file": SimpleUploadedFile(name, content)})


def test_editor_uploads_and_a_reader_downloads(client, handbook):
    client.force_login(handbook.editor)
    response = _upload(client, handbook.remote)
    assert response.status_code == 200, response.content
    item = response.json()["attachments"][0]
    attachment = Attachment.objects.get(page=handbook.remote)
    assert item["markdown"] == f"![plan.png]({attachment.get_absolute_url()})"
    assert item["url"].startswith("/attachments/") and attachment.id.hex not in (str(handbook.remote.pk),)
    assert attachment.uploaded_by == handbook.editor and attachment.size == len(PNG)
    assert attachment.content_type == "image/png"

    client.force_login(handbook.reader)
    download = client.get(item["url"])
    assert download.status_code == 200
    assert b"".join(download.streaming_content) == PNG
    assert download["Content-Type"] == "image/png"
    assert "sandbox" in download["Content-Security-Policy"]
    assert download["Cache-Control"] == "private, no-cache"
    # The same answer again is a cheap 304, but only after the permission check.
    again = client.get(item["url"], HTTP_IF_NONE_MATCH=download["ETag"])
    assert again.status_code == 304


def test_documents_are_downloaded_not_shown(client, handbook):
    client.force_login(handbook.editor)
    _upload(client, handbook.remote, "budget.xlsx", b"PK\x03\x04 spreadsheet")
    attachment = Attachment.objects.get(page=handbook.remote)
    assert attachment.markdown() == f"[budget.xlsx]({attachment.get_absolute_url()})"
    response = client.get(attachment.get_absolute_url())
    assert response["Content-Disposition"].startswith("attachment;")


def test_the_image_shows_inline_in_the_rendered_page(client, handbook):
    client.force_login(handbook.editor)
    markdown = _upload(client, handbook.remote).json()["attachments"][0]["markdown"]
    html = render_markdown(f"Our floor plan:\n\n{markdown}\n")
    attachment = Attachment.objects.get(page=handbook.remote)
    assert f'<img src="{attachment.get_absolute_url()}" alt="plan.png">' in html


def test_type_and_size_limits_with_clear_messages(client, handbook):
    client.force_login(handbook.editor)
    response = _upload(client, handbook.remote, "tool.exe", b"MZ")
    assert response.status_code == 400
    assert "this type of file is not accepted" in response.json()["errors"][0]
    response = _upload(client, handbook.remote, "big.pdf", b"%PDF" + b"x" * 2000)
    assert response.status_code == 400
    assert "is too large" in response.json()["errors"][0] and "limit is" in response.json()["errors"][0]
    assert not Attachment.objects.exists()
    with translation.override("fr"), pytest.raises(AttachmentRejected) as rejected:
        attachment_create(page=handbook.remote, stream=io.BytesIO(b"MZ"), name="outil.exe")
    assert "ce type de fichier n’est pas accepté" in rejected.value.messages[0]


def test_names_are_cleaned_and_the_type_comes_from_the_allow_list(handbook):
    attachment = attachment_create(
        page=handbook.remote, stream=io.BytesIO(b"<svg/>"), name="../../etc/Plan d'étage (v2).SVG"
    )
    assert attachment.original_name == "Plan d'étage (v2).SVG"
    assert attachment.content_type == "image/svg+xml"
    assert "/" not in attachment.url_name and "(" not in attachment.url_name
    assert attachment.file.name.startswith(f"attachments/{attachment.id.hex}/")


def test_readers_and_outsiders_cannot_upload(client, handbook):
    client.force_login(handbook.reader)
    assert _upload(client, handbook.remote).status_code == 403
    client.force_login(handbook.outsider)
    assert _upload(client, handbook.remote).status_code == 404
    assert not Attachment.objects.exists()


def test_hidden_page_attachment_is_404_by_url(client, handbook):
    """GIVEN an image on the payroll-only page WHEN anyone else asks for its URL THEN 404, like a made-up id."""
    attachment = attachment_create(page=handbook.salary, stream=io.BytesIO(PNG), name="grid.png")
    address = attachment.get_absolute_url()
    for user in (handbook.reader, handbook.editor, handbook.outsider):
        client.force_login(user)
        assert client.get(address).status_code == 404
        assert client.get(f"/attachments/{attachment.id}/").status_code == 404
    client.force_login(handbook.payroll)
    assert client.get(address).status_code == 200
    assert client.get(f"/attachments/{uuid.uuid4()}/grid.png").status_code == 404
    client.logout()
    assert client.get(address).status_code == 302  # to the login page, nothing served


def test_access_follows_the_page_on_every_request(client, handbook, make_user):
    attachment = attachment_create(page=handbook.remote, stream=io.BytesIO(PNG), name="a.png")
    client.force_login(handbook.reader)
    assert client.get(attachment.get_absolute_url()).status_code == 200
    page_set_restrictions(page=handbook.remote, groups=list(handbook.payroll.groups.filter(name="payroll")))
    assert client.get(attachment.get_absolute_url()).status_code == 404
    page_set_restrictions(page=handbook.remote, groups=[])
    page_delete(page=handbook.remote)
    assert client.get(attachment.get_absolute_url()).status_code == 404


def test_editors_see_the_images_of_a_draft_readers_do_not(client, handbook, make_page):
    from handbook.services import page_create

    draft = page_create(space=handbook.hr, title="Draft", body="x", publish=False)
    attachment = attachment_create(page=draft, stream=io.BytesIO(PNG), name="a.png")
    client.force_login(handbook.editor)
    assert client.get(attachment.get_absolute_url()).status_code == 200
    client.force_login(handbook.reader)
    assert client.get(attachment.get_absolute_url()).status_code == 404


def test_editor_upload_without_javascript_keeps_the_text(client, handbook):
    client.force_login(handbook.editor)
    response = client.post(
        url(handbook.remote, "edit"),
        {
            "title": "Remote work",
            "body": "Unsaved words.",
            "base_number": 1,
            "action": "upload",
            "file": SimpleUploadedFile("desk.png", PNG),
        },
    )
    assert response.status_code == 200
    attachment = Attachment.objects.get(page=handbook.remote)
    body = response.context["form"]["body"].value()
    assert body.startswith("Unsaved words.") and attachment.markdown() in body
    handbook.remote.refresh_from_db()
    assert "Unsaved words." not in handbook.remote.body  # nothing saved
    page = client.get(url(handbook.remote, "edit")).content.decode()
    assert 'enctype="multipart/form-data"' in page and "js/attachments.js" in page
