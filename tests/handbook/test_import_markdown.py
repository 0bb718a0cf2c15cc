"""import_markdown: a small tree written by the test, imported, re-synced, and its markup cleaned."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from handbook.attachment_models import Attachment
from handbook.markdown import render_markdown
from handbook.markdown_import.cleanup import clean_markdown
from handbook.models import Page, Revision

pytestmark = pytest.mark.django_db

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32

TREE = {
    "README.md": (
        "---\ntitle: Handbook home\nlang: en\n---\n\nWelcome. See the [guide](guide/) and [about](about.md).\n"
    ),
    "guide/index.md": (
        "# The guide\n\n{% comment %}internal note{% endcomment %}<!-- hidden -->\n"
        "Start with [setting up](./setup.md#install), then go [home](../README.md).\n\n"
        '![Screenshot](./img/shot.png)\n\n{% image "assets/logo.png" "Logo" %}\n\n'
        '<Badge text="new"/> Read <a href="setup.md">the <strong>setup</strong></a>.\n\n'
        "This [link is broken](missing.md). Get [the tool](tool.exe).\n\n"
        "::: tip\nA VuePress tip.\n:::\n\n```liquid\n{% keep this %}\n```\n"
    ),
    "guide/setup.md": (
        "---\ntitle: Setting up\n---\n\n## Install\n\nBack to the [guide]({{ site.baseurl }}/guide/) "
        'or [about us]({% page "/about-us/" %}).\n\n{{< figure src="/assets/logo.png" alt="Logo again" >}}\n'
    ),
    "about.md": (
        "---\npermalink: /about-us/\n---\n\nNous sommes l'équipe qui écrit le manuel des salariés, pour vous.\n"
    ),
}


def write_tree(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())


@pytest.fixture
def tree(tmp_path, settings):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    root = tmp_path / "site"
    write_tree(root, {**TREE, "guide/img/shot.png": PNG, "assets/logo.png": PNG, "guide/tool.exe": b"MZ"})
    return root


def run_import(root: Path, *args: str) -> str:
    out = StringIO()
    call_command("import_markdown", str(root), "--space", "docs", "--viewer-group", "staff", *args, stdout=out)
    return out.getvalue()


def pages() -> dict[str, Page]:
    return {p.ref.split(":", 2)[2]: p for p in Page.objects.filter(space__slug="docs", deleted_at__isnull=True)}


def test_a_tree_becomes_pages_with_their_tree_links_and_images(tree, no_embeddings):
    output = run_import(tree)
    assert "4 created, 0 updated, 0 unchanged" in output
    found = pages()
    assert {name: p.title for name, p in found.items()} == {
        "README.md": "Handbook home",
        "guide/index.md": "The guide",
        "guide/setup.md": "Setting up",
        "about.md": "About",
    }
    assert found["about.md"].language == "fr" and found["guide/setup.md"].language == "en"
    # Folders become the tree: README is the root, guide/index.md the parent of its folder.
    assert found["guide/index.md"].parent == found["README.md"]
    assert found["guide/setup.md"].parent == found["guide/index.md"]
    assert found["about.md"].parent == found["README.md"]
    guide = found["guide/index.md"].body
    setup_url = found["guide/setup.md"].get_absolute_url()
    assert f"[setting up]({setup_url}#install)" in guide
    assert f"[home]({found['README.md'].get_absolute_url()})" in guide
    assert f"[the **setup**]({setup_url})" in guide
    assert f"[about us]({found['about.md'].get_absolute_url()})" in found["guide/setup.md"].body
    assert f"[guide]({found['guide/index.md'].get_absolute_url()})" in found["guide/setup.md"].body
    # Images became attachments of the page that shows them, linked by their handbook address.
    shots = Attachment.objects.filter(page=found["guide/index.md"]).order_by("original_name")
    assert [a.original_name for a in shots] == ["logo.png", "shot.png"]
    for attachment in shots:
        assert attachment.get_absolute_url() in guide
    html = render_markdown(guide)
    assert html.count("<img ") == 2
    # Generator markup is gone or rendered to text; code is left as written.
    for raw in ("{%", "{{", "<!--", "Badge", "internal note", ":::", "&lt;a", "&lt;strong"):
        assert raw not in html.replace("{% keep this %}", ""), raw
    assert "new" in html and "A VuePress tip." in html and "{% keep this %}" in html
    # What could not be resolved is reported, not silently left.
    assert "Broken link: guide/index.md → missing.md" in output
    assert "Skipped: guide/tool.exe" in output and "not accepted" in output


def test_running_it_again_changes_nothing_then_exactly_the_edited_files(tree, no_embeddings):
    run_import(tree)
    revisions = Revision.objects.count()
    attachments = Attachment.objects.count()
    output = run_import(tree)
    assert "0 created, 0 updated, 4 unchanged" in output
    assert Revision.objects.count() == revisions and Attachment.objects.count() == attachments

    (tree / "guide/setup.md").write_text(TREE["guide/setup.md"] + "\nOne more line.\n")
    (tree / "README.md").write_text(TREE["README.md"].replace("Welcome.", "Welcome!"))
    (tree / "about.md").unlink()
    output = run_import(tree)
    assert "0 created, 2 updated, 1 unchanged, 0 archived, 1 missing" in output
    assert "File gone (use --delete-missing): about.md" in output
    assert Revision.objects.count() == revisions + 2
    assert "One more line." in pages()["guide/setup.md"].body

    output = run_import(tree, "--delete-missing")
    assert "0 updated, 3 unchanged, 1 archived" in output
    assert "about.md" not in pages()
    # The link to the archived page now points at a page readers cannot open: the broken-link report lists it.


def test_titles_fall_back_to_the_first_heading_then_the_file_name(tmp_path, settings, no_embeddings):
    settings.MEDIA_ROOT = tmp_path / "media"
    write_tree(
        tmp_path / "t",
        {"a.md": "Intro\n\n## Second level first\n", "2-phase-deux.md": "Texte sans titre du tout, en français.\n"},
    )
    run_import(tmp_path / "t")
    titles = {p.title for p in Page.objects.filter(space__slug="docs")}
    assert titles == {"Second level first", "Phase deux"}


def test_html_tables_and_components_become_markdown():
    text = clean_markdown(
        '<table><tr><th>Who</th><th>What</th></tr><tr><td><a href="x.md">X</a></td><td>1<br>2</td></tr></table>\n'
        '<Button link="https://example.org" text="Go"/>\n<CurrentGroupToc></CurrentGroupToc>\n'
        "Mail <team@example.org> or `<your name>`.\n"
    )
    assert "| Who | What |\n|---|---|\n| [X](x.md) | 1 2 |" in text
    assert "[Go](https://example.org)" in text and "CurrentGroupToc" not in text
    assert "<team@example.org>" in text and "`<your name>`" in text
