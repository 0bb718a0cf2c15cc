"""The admin's "Import Markdown (zip)": zips built here, imported by the importer of ``import_markdown``,
unsafe or oversized archives refused before anything changes, and only for those the admin admits."""

from __future__ import annotations

import io
import stat
import tempfile
import zipfile
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import translation

from handbook.attachment_models import Attachment
from handbook.models import Page, Revision

pytestmark = pytest.mark.django_db

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32
TREE = {
    "README.md": "---\ntitle: Handbook home\n---\n\nWelcome. Read [the guide](guide/).\n",
    "guide/index.md": "# The guide\n\n![Screenshot](img/shot.png)\n\nThen [set up](setup.md) or [nowhere](gone.md).\n",
    "guide/setup.md": "# Setting up\n\nInstall the tools.\n",
    "guide/img/shot.png": PNG,
}


def make_zip(files: dict[str, str | bytes], *, prefix: str = "handbook/", links: dict[str, str] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(prefix + name, content)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(prefix + name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, target)
    return buffer.getvalue()


@pytest.fixture
def docs(make_space, settings, tmp_path, no_embeddings):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    return make_space("docs", viewers=("staff",), editors=("docs-editors",))


@pytest.fixture
def admin_client(client, make_user):  # type: ignore[no-untyped-def]
    client.force_login(make_user("root", superuser=True))
    return client


def upload(client, space, data: bytes, **fields):  # type: ignore[no-untyped-def]
    url = reverse("admin:handbook_space_import_markdown_into", args=[space.pk])
    form = {"space": space.pk, "archive": SimpleUploadedFile("handbook.zip", data, "application/zip"), **fields}
    return client.post(url, form)


def test_the_space_pages_offer_the_import(admin_client, docs):
    link = reverse("admin:handbook_space_import_markdown_into", args=[docs.pk])
    assert link in admin_client.get(reverse("admin:handbook_space_change", args=[docs.pk])).content.decode()
    listing = admin_client.get(reverse("admin:handbook_space_changelist")).content.decode()
    assert reverse("admin:handbook_space_import_markdown") in listing
    page = admin_client.get(link)
    assert page.status_code == 200 and page.context["form"].initial["space"] == docs


def test_a_zip_becomes_pages_and_a_second_upload_changes_nothing(admin_client, docs):
    response = upload(admin_client, docs, make_zip(TREE), viewer_groups=[], delete_missing="")
    assert response.status_code == 200
    report = response.context["report"]
    assert sorted(report.created) == ["README.md", "guide/index.md", "guide/setup.md"]
    assert report.broken_links == [("guide/index.md", "gone.md")] and report.attachments_created == 1
    html = response.content.decode()
    assert '<td class="created">3</td>' in html and "gone.md" in html
    pages = {p.ref.split(":", 2)[2]: p for p in Page.objects.filter(space=docs)}
    guide = pages["guide/index.md"]
    assert guide.parent == pages["README.md"] and pages["guide/setup.md"].parent == guide
    shot = Attachment.objects.get(page=guide)
    assert shot.original_name == "shot.png" and f"/attachments/{shot.id}/" in guide.body
    assert f"/spaces/docs/{pages['guide/setup.md'].slug}/" in guide.body
    assert guide.last_editor.username == "root"

    revisions, attachments = Revision.objects.count(), Attachment.objects.count()
    again = upload(admin_client, docs, make_zip(TREE)).context["report"]
    assert (len(again.created), len(again.updated), len(again.unchanged)) == (0, 0, 3)
    assert (Revision.objects.count(), Attachment.objects.count()) == (revisions, attachments)


def test_groups_are_added_and_vanished_files_archived_when_asked(admin_client, docs, make_user):
    upload(admin_client, docs, make_zip(TREE))
    readers = make_user("someone", "readers").groups.get()
    smaller = {k: v for k, v in TREE.items() if k != "guide/setup.md"}
    kept = upload(admin_client, docs, make_zip(smaller)).context["report"]
    assert kept.missing == ["guide/setup.md"] and not kept.archived
    assert Page.objects.filter(space=docs, deleted_at__isnull=True).count() == 3
    report = upload(admin_client, docs, make_zip(smaller), viewer_groups=[readers.pk], delete_missing="on")
    assert report.context["report"].archived == ["guide/setup.md"]
    assert Page.objects.filter(space=docs, deleted_at__isnull=True).count() == 2
    assert readers in docs.viewer_groups.all()


@pytest.mark.parametrize(
    ("names", "links"),
    [
        (["../escaped.md"], {}),
        (["guide/../../escaped.md"], {}),
        (["/tmp/escaped.md"], {}),
        (["C:\\escaped.md"], {}),
        ([], {"guide/passwd.md": "/etc/passwd"}),
    ],
    ids=["dotdot", "nested-dotdot", "absolute", "drive", "symlink"],
)
def test_an_unsafe_zip_is_refused_whole(admin_client, docs, names, links):
    files = {**TREE, **dict.fromkeys(names, "# Escaped\n")}
    response = upload(admin_client, docs, make_zip(files, prefix="", links=links))
    assert response.status_code == 200 and response.context["report"] is None
    errors = response.context["form"].errors["archive"][0]
    assert "inside it" in errors or "symbolic link" in errors
    assert "Nothing was imported" in response.content.decode()
    assert not Page.objects.filter(space=docs).exists() and not Attachment.objects.exists()
    assert not (Path(tempfile.gettempdir()) / "escaped.md").exists()


def archive_error(client, space, data: bytes) -> str:  # type: ignore[no-untyped-def]
    return str(upload(client, space, data).context["form"].errors["archive"][0])


def test_too_large_too_many_or_not_a_zip_is_refused(admin_client, docs, settings):
    settings.MARKDOWN_ZIP_MAX_BYTES = 10_000
    bomb = make_zip({**TREE, "big.md": "# Big\n\n" + "a" * 20_000})  # compresses to a few bytes
    assert len(bomb) < 10_000
    assert "larger than" in archive_error(admin_client, docs, bomb)
    settings.MARKDOWN_ZIP_MAX_FILES = 3
    assert "the limit is 3" in archive_error(admin_client, docs, make_zip(TREE))
    settings.MARKDOWN_ZIP_MAX_FILES = 100
    assert "not a readable zip" in archive_error(admin_client, docs, b"PK\x03\x04 not really")
    assert "no Markdown" in archive_error(admin_client, docs, make_zip({"a.png": PNG}))
    assert not Page.objects.filter(space=docs).exists()


def test_only_those_the_admin_admits_may_import(client, docs, make_user):
    url = reverse("admin:handbook_space_import_markdown_into", args=[docs.pk])
    anonymous = client.get(url)
    assert anonymous.status_code == 302 and "/login/" in anonymous["Location"]
    for user in (make_user("outsider", "staff", staff=True), make_user("editor", "docs-editors", staff=True)):
        client.force_login(user)
        assert client.get(url).status_code == 403
        response = upload(client, docs, make_zip(TREE))
        assert response.status_code == 403
    assert not Page.objects.filter(space=docs).exists()


def test_a_space_that_does_not_exist_is_not_found(admin_client, docs):
    url = reverse("admin:handbook_space_import_markdown_into", args=[docs.pk + 1000])
    assert admin_client.get(url).status_code == 404


def test_the_import_speaks_french():
    with translation.override("fr"):
        assert translation.gettext("Import Markdown (zip)") != "Import Markdown (zip)"
        assert translation.gettext("The archive holds no Markdown file (.md).") != (
            "The archive holds no Markdown file (.md)."
        )
        limit = "The archive holds %(count)s entries (files and folders); the limit is %(limit)s."
        assert "entrées" in translation.gettext(limit)
