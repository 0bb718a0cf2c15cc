"""export_space and the broken-link report: a round trip through a zip rebuilds the same space."""

from __future__ import annotations

import re
import zipfile
from io import StringIO

import pytest
from django.core.management import call_command

from handbook.attachments.models import Attachment
from handbook.models import Page
from tests.handbook.test_import_markdown import PNG, TREE, write_tree

pytestmark = pytest.mark.django_db


@pytest.fixture
def imported(tmp_path, settings, no_embeddings):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    root = tmp_path / "site"
    write_tree(root, {**TREE, "guide/img/shot.png": PNG, "assets/logo.png": PNG})
    call_command("import_markdown", str(root), "--space", "docs", "--editor-group", "docs-editors", stdout=StringIO())
    return tmp_path


def _normalised(page: Page) -> str:
    """The body with page addresses replaced by the linked page's title, attachments by their name."""
    body = re.sub(
        r"/spaces/[\w-]+/([\w-]+)/",
        lambda m: "PAGE:" + Page.objects.get(space=page.space, slug=m.group(1)).title,
        page.body,
    )
    return re.sub(
        r"/attachments/([0-9a-f-]{36})/[^)\s]*",
        lambda m: "FILE:" + Attachment.objects.get(pk=m.group(1)).original_name,
        body,
    )


def _space(slug: str) -> dict[str, Page]:
    return {p.title: p for p in Page.objects.filter(space__slug=slug).published()}


def test_export_then_import_gives_the_same_space(imported):
    out = imported / "docs.zip"
    output = StringIO()
    call_command("export_space", "docs", str(out), stdout=output)
    assert "4 page(s) and 3 attachment(s)" in output.getvalue()
    with zipfile.ZipFile(out) as archive:
        names = set(archive.namelist())
        assert "handbook-home/index.md" in names
        assert "handbook-home/the-guide/index.md" in names
        guide = archive.read("handbook-home/the-guide/index.md").decode()
    assert guide.startswith("---\ntitle: The guide\nlanguage: en\nrevision: 1\nupdated: ")
    assert "[setting up](setting-up.md#install)" in guide and "](_.files/shot.png)" in guide

    extracted = imported / "unzipped"
    zipfile.ZipFile(out).extractall(extracted)
    output = StringIO()
    call_command("import_markdown", str(extracted), "--space", "copy", stdout=output)
    # The only unresolved links are the two the original already had (missing.md, tool.exe).
    assert "4 created" in output.getvalue() and "2 broken link(s)" in output.getvalue()
    original, copy = _space("docs"), _space("copy")
    assert set(original) == set(copy)
    for title, page in original.items():
        assert _normalised(copy[title]) == _normalised(page), title
        assert copy[title].language == page.language
        assert sorted(a.original_name for a in copy[title].attachments.all()) == sorted(
            a.original_name for a in page.attachments.all()
        )
    assert copy["The guide"].parent == copy["Handbook home"]


def test_editors_export_and_see_broken_links_readers_do_not(imported, client, make_user):
    editor = make_user("ed", "docs-editors")
    reader = make_user("rd", "staff")
    client.force_login(editor)
    response = client.get("/spaces/docs/_export/")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    page = client.get("/spaces/docs/_links/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "missing.md" in text and "The guide" in text
    assert "/spaces/docs/_links/" in client.get("/spaces/docs/").content.decode()

    # A page archived later leaves a dangling link: the report lists it as a missing page.
    from handbook.services import page_delete

    page_delete(page=Page.objects.get(title="About"))
    assert "missing page" in client.get("/spaces/docs/_links/").content.decode()

    client.force_login(reader)
    assert client.get("/spaces/docs/_export/").status_code == 404  # cannot even read the space
    assert client.get("/spaces/docs/_links/").status_code == 404
