"""import_markdown reads the tree it is given and nothing else: no symbolic link is followed, and
front matter cannot blow up (YAML aliases) or set a title that is not a string."""

from __future__ import annotations

from io import StringIO
from pathlib import Path, PurePosixPath

import pytest
from django.core.management import call_command

from handbook.attachment_models import Attachment
from handbook.models import Page
from tests.handbook.test_import_markdown import pages, run_import, write_tree

pytestmark = pytest.mark.django_db


@pytest.fixture
def outside(tmp_path) -> Path:  # type: ignore[no-untyped-def]
    folder = tmp_path / "private"
    write_tree(folder, {"leak.md": "# Leaked\n\nprivatecanary\n", "keys.txt": "keycanary", "sub/deep.md": "# Deep\n"})
    return folder


@pytest.fixture
def linked_tree(tmp_path, settings, outside):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    root = tmp_path / "site"
    write_tree(root, {"index.md": "# Home\n\nSee [notes](notes.txt), [keys](keys.txt) and [leak](leak.md).\n"})
    (root / "notes.txt").symlink_to("/etc/passwd")
    (root / "leak.md").symlink_to(outside / "leak.md")
    (root / "keys.txt").symlink_to(outside / "keys.txt")
    (root / "linked").symlink_to(outside, target_is_directory=True)  # a folder of the tree that is a link
    (root / "inner.md").symlink_to(root / "index.md")  # even a link that stays inside is not followed
    return root


def test_symbolic_links_are_skipped_and_reported(linked_tree, no_embeddings):
    output = run_import(linked_tree)
    assert set(pages()) == {"index.md"}
    everything = " ".join(Page.objects.values_list("body", flat=True))
    assert "privatecanary" not in everything and "Deep" not in everything
    assert not Attachment.objects.exists()  # neither /etc/passwd nor keys.txt was stored
    for name in ("notes.txt", "leak.md", "keys.txt", "linked", "inner.md"):
        assert f"Skipped: {name}: symbolic link, not followed" in output, output
    assert "5 skipped file(s)" in output
    body = pages()["index.md"].body
    assert "[notes](notes.txt)" in body and "[leak](leak.md)" in body  # broken links, left as written


def test_a_file_swapped_for_a_link_after_the_scan_is_not_read(tmp_path, settings, outside, no_embeddings):
    """Between the scan and the reads, a page, an image and a folder become links: each read is refused
    (every component is checked again before anything is opened)."""
    from handbook.markdown_import.importer import MarkdownTreeImport
    from handbook.services import space_create

    settings.MEDIA_ROOT = tmp_path / "media"
    root = tmp_path / "site"
    files = {"index.md": "# Home\n\n![map](map.png)\n", "page.md": "# Page\n", "map.png": b"PNG", "sub/deep.md": "#"}
    write_tree(root, files)
    job = MarkdownTreeImport(root, space=space_create(slug="docs", title="Docs"))
    assert job.scan() == [PurePosixPath("index.md"), PurePosixPath("page.md"), PurePosixPath("sub/deep.md")]
    for name, target in (("page.md", outside / "leak.md"), ("map.png", outside / "keys.txt")):
        (root / name).unlink()
        (root / name).symlink_to(target)
    (root / "sub").rename(tmp_path / "elsewhere")
    (root / "sub").symlink_to(outside / "sub", target_is_directory=True)

    assert job.read(PurePosixPath("page.md")) is None
    assert job.read(PurePosixPath("sub/deep.md")) is None
    source = job.read(PurePosixPath("index.md"))
    job.sources[source.rel] = source
    job.index_sources()
    attachments: dict = {}
    assert "](map.png)" in job.rewrite(source, attachments)  # left as written, nothing stored
    assert attachments[PurePosixPath("map.png")][1] == ""
    assert job.report.skipped == [
        ("page.md", "symbolic link, not followed"),
        ("sub/deep.md", "symbolic link, not followed"),
        ("map.png", "linked from index.md: symbolic link, not followed"),
    ]


def test_the_root_itself_may_be_a_link(tmp_path, settings, no_embeddings):
    settings.MEDIA_ROOT = tmp_path / "media"
    real = tmp_path / "real"
    write_tree(real, {"index.md": "# Home\n\nWelcome.\n"})  # text: an index of a title alone makes no page
    (tmp_path / "current").symlink_to(real, target_is_directory=True)
    out = StringIO()
    call_command("import_markdown", str(tmp_path / "current"), "--space", "docs", stdout=out)
    assert "1 created" in out.getvalue()


def _import_one(root: Path, text: str) -> tuple[Page, str]:
    write_tree(root, {"page.md": text})
    output = run_import(root)
    return pages()["page.md"], output


@pytest.mark.parametrize(
    "front",
    [
        "base: &t Aliased title\ntitle: *t\n",  # an alias, harmless here, is refused all the same
        "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nlang: *b\ntitle: Laughs\n",
    ],
)
def test_yaml_aliases_are_refused(front, tmp_path, settings, no_embeddings):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    page, output = _import_one(tmp_path / "site", f"---\n{front}---\n\n# The heading\n\nBody.\n")
    assert page.title == "The heading" and "Body." in page.body
    assert "Skipped: page.md: front matter refused: YAML aliases (*name) are not accepted; text imported" in output


def test_a_huge_front_matter_is_ignored(tmp_path, settings, no_embeddings):  # type: ignore[no-untyped-def]
    from handbook.markdown_import.front_matter import MAX_FRONT_MATTER_BYTES

    settings.MEDIA_ROOT = tmp_path / "media"
    tags = "".join(f"  - tag{n}\n" for n in range(MAX_FRONT_MATTER_BYTES // 10))
    page, output = _import_one(tmp_path / "site", f"---\ntitle: Front\ntags:\n{tags}---\n\n# The heading\n")
    assert page.title == "The heading"
    assert "Skipped: page.md: front matter larger than 64 KB, ignored; text imported" in output


@pytest.mark.parametrize("title", ["[a, b]", "{x: 1}", "2024", "2024-01-01", "true"])
def test_a_title_that_is_not_text_is_reported(title, tmp_path, settings, no_embeddings):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    page, output = _import_one(tmp_path / "site", f"---\ntitle: {title}\nlang: en\n---\n\nNo heading here.\n")
    assert page.title == "Page"  # the file name
    assert page.language == "en"  # the rest of the front matter still counts
    assert "Skipped: page.md: front matter title is not text; the heading or file name is used" in output


def test_a_text_title_and_a_missing_one_still_work(tmp_path, settings, no_embeddings):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    page, output = _import_one(tmp_path / "site", "---\ntitle: '  Spaced  '\n---\n\n# Heading\n")
    assert page.title == "Spaced" and "Skipped" not in output
    page, output = _import_one(tmp_path / "other", "---\ntitle:\n---\n\n# Heading\n")
    assert page.title == "Heading" and "Skipped" not in output


def test_the_new_report_lines_speak_french():  # type: ignore[no-untyped-def]
    from django.utils import translation

    messages = [
        "symbolic link, not followed",
        "front matter refused: YAML aliases (*name) are not accepted; text imported",
        "front matter title is not text; the heading or file name is used",
        "page restriction",
        "“%(page)s” (space “%(space)s”) is restricted to this group: remove the restriction first",
    ]
    with translation.override("fr"):
        assert all(translation.gettext(message) != message for message in messages)
