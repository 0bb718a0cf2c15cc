"""Files pasted into New page before its first save: they wait under the form's draft token,
readable by their uploader alone, become the page's when it is saved (then read through the
page's permissions), and an unclaimed one is swept like any unused file."""

from __future__ import annotations

import io
import re
from datetime import timedelta

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from handbook.attachment_models import Attachment
from handbook.attachments.cleanup import attachments_remove_unused
from handbook.attachments.services import attachment_create, draft_token_new
from handbook.models import Page

pytestmark = pytest.mark.django_db

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.ATTACHMENTS_UNUSED_DAYS = 7


def _paste(client, token: str, name: str = "plan.png", space: str = "hr"):  # type: ignore[no-untyped-def]
    data = {"file": SimpleUploadedFile(name, PNG), "draft_token": token}
    return client.post(f"/spaces/{space}/_new/attachments/", data)


def _download(client, item):  # type: ignore[no-untyped-def]
    return client.get(item["url"])


def test_a_draft_upload_is_its_uploaders_alone_until_the_page_is_saved(client, handbook):
    token = draft_token_new()
    client.force_login(handbook.editor)
    response = _paste(client, token)
    assert response.status_code == 200, response.content
    item = response.json()["attachments"][0]
    draft = Attachment.objects.get()
    assert draft.page is None and draft.draft_token == token and draft.uploaded_by == handbook.editor
    assert item["markdown"] == f"![plan.png]({draft.get_absolute_url()})"
    assert b"".join(_download(client, item).streaming_content) == PNG

    # Nobody else opens it: not another editor of the space, not a reader, not an outsider.
    for other in (handbook.admin, handbook.reader, handbook.outsider):
        client.force_login(other)
        assert _download(client, item).status_code == 404

    # Saving the page gives it the file; readers of the published page then open it.
    client.force_login(handbook.editor)
    body = f"# Parking\n\n{item['markdown']}\n"
    saved = client.post(
        "/spaces/hr/_new/",
        {"title": "Parking", "body": body, "language": "en", "action": "publish", "draft_token": token},
    )
    assert saved.status_code == 302
    page = Page.objects.get(title="Parking")
    draft.refresh_from_db()
    assert draft.page == page and draft.draft_token == ""
    client.force_login(handbook.reader)
    assert _download(client, item).status_code == 200
    client.force_login(handbook.outsider)
    assert _download(client, item).status_code == 404


def test_only_the_uploaders_own_drafts_are_claimed(client, handbook):
    token = draft_token_new()
    client.force_login(handbook.admin)
    _paste(client, token, "theirs.png")
    client.force_login(handbook.editor)
    _paste(client, token, "mine.png")
    client.post("/spaces/hr/_new/", {"title": "Desks", "body": "# Desks\n", "language": "en", "draft_token": token})
    page = Page.objects.get(title="Desks")
    assert list(page.attachments.values_list("original_name", flat=True)) == ["mine.png"]
    assert Attachment.objects.get(original_name="theirs.png").page is None


def test_a_draft_upload_needs_the_right_to_create_pages_in_the_space(client, handbook):
    token = draft_token_new()
    client.force_login(handbook.reader)  # reads hr, edits nothing
    assert _paste(client, token).status_code == 403
    client.force_login(handbook.editor)
    assert _paste(client, token, space="board").status_code == 404  # a space they cannot read
    assert _paste(client, token, space="no-such-space").status_code == 404
    assert _paste(client, "not-a-token").status_code == 400
    assert _paste(client, token, "run.exe").status_code == 400
    assert not Attachment.objects.exists()
    client.logout()
    assert _paste(client, token).status_code == 302  # to the login page
    assert not Attachment.objects.exists()


def test_an_unclaimed_draft_upload_is_swept_after_the_grace_period(handbook, django_capture_on_commit_callbacks):
    def draft(name: str, days_ago: float) -> Attachment:
        attachment = attachment_create(
            page=None, stream=io.BytesIO(PNG), name=name, uploaded_by=handbook.editor, draft_token=draft_token_new()
        )
        Attachment.objects.filter(pk=attachment.pk).update(created_at=timezone.now() - timedelta(days=days_ago))
        return attachment

    old, recent = draft("old.png", 8), draft("recent.png", 1)
    with django_capture_on_commit_callbacks(execute=True):
        assert attachments_remove_unused() == 1
    assert list(Attachment.objects.values_list("pk", flat=True)) == [recent.pk]
    assert not old.file.storage.exists(old.file.name)
    assert recent.file.storage.exists(recent.file.name)


def test_a_draft_needs_its_token_and_its_uploader(handbook):
    with pytest.raises(ValueError):
        attachment_create(page=None, stream=io.BytesIO(PNG), name="x.png", uploaded_by=handbook.editor)
    with pytest.raises(ValueError):
        attachment_create(page=None, stream=io.BytesIO(PNG), name="x.png", draft_token=draft_token_new())
    assert not Attachment.objects.exists()


def test_without_javascript_the_new_page_form_uploads_into_its_draft(client, handbook):
    client.force_login(handbook.editor)
    form = client.get("/spaces/hr/_new/").content.decode()
    token = re.search(r'name="draft_token" value="([0-9a-f]{32})"', form).group(1)
    assert 'enctype="multipart/form-data"' in form
    response = client.post(
        "/spaces/hr/_new/",
        {
            "title": "Parking",
            "body": "# Parking\n",
            "language": "en",
            "action": "upload",
            "draft_token": token,
            "file": SimpleUploadedFile("map.png", PNG),
        },
    )
    assert response.status_code == 200
    draft = Attachment.objects.get()
    assert draft.page is None and draft.draft_token == token
    html = response.content.decode()
    assert f"# Parking\n\n![map.png](/attachments/{draft.pk}/map.png)" in html  # the text, link added
    assert f'value="{token}"' in html  # the same draft goes on
    assert not Page.objects.filter(title="Parking").exists()
