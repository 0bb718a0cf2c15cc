"""export_space and the broken-link report: a round trip through a zip rebuilds the same space."""

from __future__ import annotations

import io
import re
import zipfile
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from handbook.attachment_models import Attachment
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


@pytest.fixture
def restricted_space(tmp_path, settings, no_embeddings, make_space, make_page):  # type: ignore[no-untyped-def]
    """An HR space: an open page linking to a payroll-only page; each page has a file."""
    from handbook.attachments.services import attachment_create
    from handbook.services import page_save, page_set_parent

    settings.MEDIA_ROOT = tmp_path / "media"
    space = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    hidden = make_page(space, "Grille secrète", "# Grid\n\nsalarycanary", restricted_to=("payroll",), index=False)
    secret_file = attachment_create(page=hidden, stream=io.BytesIO(b"filecanary"), name="grid.csv")
    hidden = page_save(page=hidden, title=hidden.title, body=hidden.body + f"\n\n{secret_file.markdown()}\n").page
    open_page = make_page(space, "Welcome", "# Welcome", index=False)
    open_file = attachment_create(page=open_page, stream=io.BytesIO(b"open file"), name="map.txt")
    runbook = make_page(make_space("ops", viewers=("hr-editors", "staff")), "Runbook", "# Runbook", index=False)
    body = (
        f"# Welcome\n\nSee [the grid](/spaces/hr/{hidden.slug}/) and {open_file.markdown()}.\n\n"
        f"Also [its file](/attachments/{secret_file.id}/grid.csv), [gone](/spaces/hr/nothing/) and "
        f"[the runbook](/spaces/ops/{runbook.slug}/).\n\n"
        f"Its [history](/spaces/hr/{hidden.slug}/history/), the [board](/spaces/board/), [ops](/spaces/ops/).\n"
    )
    make_space("board", viewers=("board",), editors=("board",))
    open_page = page_save(page=open_page, title="Welcome", body=body).page
    page_set_parent(page=open_page, parent=hidden)  # a hidden parent must not name a folder either
    return space, open_page, hidden


def _zip_text(data: bytes) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name).decode(errors="replace") for name in archive.namelist()}


def test_the_export_holds_only_what_its_caller_may_read(restricted_space, client, make_user):
    space, open_page, hidden = restricted_space
    editor = make_user("ed", "hr-editors")
    client.force_login(editor)
    response = client.get("/spaces/hr/_export/")
    files = _zip_text(b"".join(response.streaming_content))
    everything = "".join(files) + "".join(files.values())
    assert set(files) == {"welcome.md", "welcome.files/map.txt"}
    for secret in ("salarycanary", "filecanary", "Grille secrète", "grid.csv", "grille-secrete"):
        assert secret not in everything, secret
    # The link to the left-out page becomes its text: no path, no address naming the page.
    assert "See the grid and" in files["welcome.md"]
    assert "Also its file, gone and [the runbook](/spaces/ops/runbook/)." in files["welcome.md"]
    assert "Its history, the board, [ops](/spaces/ops/)." in files["welcome.md"]
    assert "](welcome.files/map.txt)" in files["welcome.md"]

    # An editor who is also in payroll gets both pages, the link made relative.
    client.force_login(make_user("payroll-ed", "hr-editors", "payroll"))
    files = _zip_text(b"".join(client.get("/spaces/hr/_export/").streaming_content))
    assert set(files) == {
        "grille-secrete/index.md",
        "grille-secrete/_.files/grid.csv",
        "grille-secrete/welcome.md",
        "grille-secrete/welcome.files/map.txt",
    }
    assert "[the grid](index.md)" in files["grille-secrete/welcome.md"]


def test_export_space_exports_as_the_user_it_is_given(restricted_space, tmp_path, make_user):
    make_user("ed", "hr-editors")
    out = tmp_path / "hr.zip"
    output = StringIO()
    call_command("export_space", "hr", str(out), "--user", "ed", stdout=output)
    assert "1 page(s) and 1 attachment(s)" in output.getvalue()
    assert "salarycanary" not in "".join(_zip_text(out.read_bytes()).values())

    # Without --user: every published page, as a superuser reads them (the command's old behaviour).
    call_command("export_space", "hr", str(out), stdout=output)
    assert "grille-secrete/_.files/grid.csv" in _zip_text(out.read_bytes())

    make_user("outsider", "sales")
    with pytest.raises(CommandError, match="cannot read"):
        call_command("export_space", "hr", str(out), "--user", "outsider", stdout=output)
    with pytest.raises(CommandError, match="no user"):
        call_command("export_space", "hr", str(out), "--user", "nobody", stdout=output)
