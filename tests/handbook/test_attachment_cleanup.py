"""Attachments follow the text (handbook/attachments/cleanup.py): a file no saved revision of its
page uses is deleted once ATTACHMENTS_UNUSED_DAYS have passed since its upload; a file any
revision uses stays, and the editor's list says which is which."""

from __future__ import annotations

import io
import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from handbook.attachment_models import Attachment
from handbook.attachments.cleanup import attachment_uses, attachments_remove_unused
from handbook.attachments.services import attachment_create
from handbook.services import page_save
from handbook.tasks import remove_unused_attachments
from tests.handbook.conftest import url

pytestmark = pytest.mark.django_db

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.ATTACHMENTS_UNUSED_DAYS = 7


def _attach(page, name: str, days_ago: float) -> Attachment:  # type: ignore[no-untyped-def]
    attachment = attachment_create(page=page, stream=io.BytesIO(PNG), name=name)
    Attachment.objects.filter(pk=attachment.pk).update(created_at=timezone.now() - timedelta(days=days_ago))
    return Attachment.objects.get(pk=attachment.pk)


def test_an_unused_file_goes_after_the_grace_period_a_used_one_stays(handbook, django_capture_on_commit_callbacks):
    """GIVEN three files uploaded to a page eight days ago and one uploaded today,
    one used by the latest text and one only by an earlier revision
    WHEN the sweep runs THEN only the old file nothing uses is deleted, row and file."""
    page = handbook.remote
    used = _attach(page, "used.png", days_ago=8)
    earlier = _attach(page, "earlier.png", days_ago=8)
    unused = _attach(page, "unused.png", days_ago=8)
    recent = _attach(page, "recent.png", days_ago=1)
    body = page.body
    page_save(page=page, title=page.title, body=body + f"\n{earlier.markdown()}\n", author=handbook.editor)
    page_save(page=page, title=page.title, body=body + f"\n{used.markdown()}\n", author=handbook.editor)
    unused_path = Path(unused.file.path)
    assert unused_path.exists()

    with django_capture_on_commit_callbacks(execute=True):
        assert attachments_remove_unused() == 1
    assert set(page.attachments.values_list("original_name", flat=True)) == {"used.png", "earlier.png", "recent.png"}
    assert not unused_path.exists()
    assert Path(used.file.path).exists() and Path(earlier.file.path).exists()

    # Nothing else is due: a second run removes nothing (the task may run twice).
    assert remove_unused_attachments() == 0
    # The recent one goes once its own grace period is over.
    with django_capture_on_commit_callbacks(execute=True):
        assert attachments_remove_unused(now=timezone.now() + timedelta(days=7)) == 1
    assert not Attachment.objects.filter(pk=recent.pk).exists()


def test_the_editor_lists_what_uses_each_file(client, handbook):
    page = handbook.remote
    used = _attach(page, "used.png", days_ago=0)
    unused = _attach(page, "unused.png", days_ago=0)
    page_save(page=page, title=page.title, body=page.body + f"\n{used.markdown()}\n", author=handbook.editor)
    uses = {use.attachment.original_name: use for use in attachment_uses(page=page, text=used.markdown())}
    assert uses["used.png"].in_text and uses["used.png"].in_a_revision and uses["used.png"].removed_after is None
    assert not uses["unused.png"].in_text and not uses["unused.png"].in_a_revision
    assert uses["unused.png"].removed_after == unused.created_at + timedelta(days=7)

    client.force_login(handbook.editor)
    html = client.get(url(page, "edit")).content.decode()
    items = {
        name: item
        for item in re.findall(r"<li>(.*?)</li>", html[html.index("attachment-list") :], re.S)
        for name in ("used.png", "unused.png")
        if f">{name}</a>" in item
    }
    assert "used in the text" in items["used.png"] and "not used" not in items["used.png"]
    assert "not used — removed after 7 days" in items["unused.png"]
    html = client.get(url(page, "edit"), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "utilisé dans le texte" in html and "non utilisé — supprimé après 7 jours" in html
