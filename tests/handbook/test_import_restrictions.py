"""``restricted_to`` in front matter: written by the export for restricted pages, applied by
``import_markdown`` on every run (handbook/markdown_import/restrictions.py)."""

from __future__ import annotations

import io
import zipfile
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from handbook.markdown_import.export import space_export
from handbook.models import Page
from handbook.services import page_set_restrictions
from tests.handbook.test_import_markdown import write_tree

pytestmark = pytest.mark.django_db

HOME = "# Home\n\nWelcome.\n"


@pytest.fixture
def site(tmp_path, settings, no_embeddings, make_user):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    make_user("payer", "staff", "payroll")
    make_user("lead", "staff", "leads")
    return tmp_path / "site"


def _import(root: Path, files: dict[str, str], *args: str) -> str:
    write_tree(root, files)
    out = StringIO()
    call_command("import_markdown", str(root), "--space", "docs", "--viewer-group", "staff", *args, stdout=out)
    return out.getvalue()


def _groups(title: str) -> list[str]:
    page = Page.objects.get(space__slug="docs", title=title)
    return sorted(page.restricted_to_groups.values_list("name", flat=True))


def _page(restricted_to: str | None, text: str = "Pay grid.") -> str:
    front = f"---\nrestricted_to: {restricted_to}\n---\n\n" if restricted_to is not None else ""
    return f"{front}# Pay\n\n{text}\n"


def test_a_run_applies_the_file_and_keeps_a_hand_set_restriction_the_file_is_silent_on(site):
    _import(site, {"README.md": HOME, "pay.md": _page("[payroll]"), "open.md": "# Open\n"})
    assert _groups("Pay") == ["payroll"] and _groups("Open") == []

    # Set in the handbook on a page whose file says nothing: the next run keeps it.
    page_set_restrictions(page=Page.objects.get(title="Open"), groups=[Group.objects.get(name="leads")])
    output = _import(site, {})
    assert "0 updated, 3 unchanged" in output
    assert _groups("Open") == ["leads"] and _groups("Pay") == ["payroll"]

    # The file names other groups: the page gets exactly those (and counts as updated).
    assert "1 updated" in _import(site, {"pay.md": _page("[leads, payroll]")})
    assert _groups("Pay") == ["leads", "payroll"]
    _import(site, {"pay.md": _page("leads")})
    assert _groups("Pay") == ["leads"]

    # An explicit empty list lifts it; dropping the key afterwards changes nothing.
    _import(site, {"pay.md": _page("[]"), "open.md": "---\nrestricted_to: []\n---\n\n# Open\n"})
    assert _groups("Pay") == [] and _groups("Open") == []


def test_a_file_whose_restriction_cannot_be_applied_leaves_its_page_as_it_was(site):
    files = {
        "README.md": HOME,
        "pay/index.md": _page("[payroll]"),
        "pay/grid.md": "# Grid\n\nUnder pay.\n",
    }
    _import(site, files)
    pay = Page.objects.get(title="Pay")
    grid = Page.objects.get(title="Grid")
    assert grid.parent == pay

    # A typo in the group, new text: nothing of the file is imported, nothing of the page changes,
    # and it is neither "gone" nor archived; the page under it stays under it.
    output = _import(site, {"pay/index.md": _page("[payrol]", "New secret text.")}, "--delete-missing")
    assert "Skipped: pay/index.md: restricted_to names groups that do not exist (payrol)" in output
    assert "0 archived, 0 missing" in output
    pay.refresh_from_db()
    assert pay.deleted_at is None and "New secret text" not in pay.body and _groups("Pay") == ["payroll"]
    assert Page.objects.get(title="Grid").parent == pay

    # A new page under a file that is held back is imported, at the top, never under a missing page.
    write_tree(site, {"fresh/index.md": _page("[nobody]"), "fresh/child.md": "# Child\n"})
    _import(site, {})
    assert Page.objects.filter(title="Pay").count() == 1
    assert Page.objects.get(title="Child").parent is None


def test_the_export_names_the_groups_for_those_shown_them(site, make_user):
    _import(site, {"README.md": HOME, "pay.md": _page("[payroll, leads]")})
    space = Page.objects.get(title="Pay").space

    def front(user: object) -> str:
        out = io.BytesIO()
        space_export(space, out, user=user)
        with zipfile.ZipFile(out) as archive:
            return next(archive.read(n).decode() for n in archive.namelist() if n.endswith("pay.md"))

    assert "restricted_to:\n- leads\n- payroll\n" in front(None)
    editor = make_user("editor", "payroll")
    space.editor_groups.add(Group.objects.get_or_create(name="docs-editors")[0])
    editor.groups.add(Group.objects.get(name="docs-editors"))
    assert "restricted_to:\n- leads\n- payroll\n" in front(editor)
    # A reader inside the restriction reads the page but is shown no group names, here as on the page.
    text = front(make_user("payreader", "staff", "payroll"))
    assert "Pay grid" in text and "restricted_to" not in text
