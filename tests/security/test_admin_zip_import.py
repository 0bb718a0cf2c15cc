"""The admin zip import (attachments and the broken-link report: ``test_attachments_and_link_report.py``).

What was tried:

- more escaping spellings (backslashes, ``./..``, UNC), a linked folder, a name twice, sizes that
  lie: refused whole; folder entries count against ``MARKDOWN_ZIP_MAX_FILES`` like files, and an
  upload over ``MARKDOWN_ZIP_MAX_MB`` (or one whose list of entries is longer than the limit needs)
  is refused before ``zipfile`` reads its list;
- Python-tagged YAML front matter is not executed;
- raw HTML, scripts, handlers, ``javascript:``/``data:`` links and SVG in a page never reach a
  reader as markup; a linked SVG is served sandboxed, a linked ``.html`` or a path outside the zip
  is not stored;
- a space rebuilt from its export keeps its restricted pages restricted, and a restriction the
  import cannot apply (an unknown group, a malformed value) keeps the page out rather than open.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
from django.test import Client

from accounts.services import token_create
from handbook.attachment_models import Attachment
from handbook.models import Page
from tests.handbook.conftest import _fast_passwords_and_clean_cache, handbook  # noqa: F401
from tests.handbook.test_admin_markdown_zip import TREE, make_zip, upload
from tests.security.test_attachments_and_link_report import _client, _dangers

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def docs(make_space, make_user, no_embeddings):  # type: ignore[no-untyped-def]
    return make_space("docs", viewers=("staff",), editors=("docs-editors",))


@pytest.fixture
def admin_client(client, make_user):  # type: ignore[no-untyped-def]
    client.force_login(make_user("root", superuser=True))
    return client


def _refused(response: Any) -> str:
    assert response.status_code == 200 and response.context["report"] is None
    return str(response.context["form"].errors["archive"][0])


@pytest.mark.parametrize(
    "name",
    [
        "..\\escaped.md",
        "guide\\..\\..\\escaped.md",
        "./../escaped.md",
        "a/./b/../../../escaped.md",
        "\\\\host\\share\\x.md",
    ],
    ids=["backslash-dotdot", "nested-backslash", "dot-dotdot", "deep-dotdot", "unc"],
)
def test_more_escaping_spellings_are_refused_whole(admin_client, docs, name, tmp_path):
    response = upload(admin_client, docs, make_zip({**TREE, name: "# Escaped\n"}, prefix=""))
    assert "inside it" in _refused(response)
    assert not Page.objects.filter(space=docs).exists() and not Attachment.objects.exists()


def test_a_linked_folder_a_name_twice_or_lying_sizes_are_refused_whole(admin_client, docs, settings):
    linked_folder = make_zip(TREE, links={"guide/etc": "/etc"})
    assert "symbolic link" in _refused(upload(admin_client, docs, linked_folder))

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("handbook/README.md", "# One\n")
        with pytest.warns(UserWarning, match="Duplicate name"):
            archive.writestr("handbook/README.md", "# Two\n")
    assert "appears twice" in _refused(upload(admin_client, docs, buffer.getvalue()))

    # The sizes the archive declares say 10 bytes; the entry holds 200 kB (a bomb that lies).
    settings.MARKDOWN_ZIP_MAX_BYTES = 50_000
    big = b"# Big\n\n" + b"a" * 200_000
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("handbook/big.md", big)
    data = bytearray(buffer.getvalue())
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = data.find(signature)
        data[at + offset : at + offset + 4] = (10).to_bytes(4, "little")
    assert zipfile.ZipFile(io.BytesIO(bytes(data))).infolist()[0].file_size == 10
    error = _refused(upload(admin_client, docs, bytes(data)))
    assert "larger than" in error or "not a readable zip" in error
    assert not Page.objects.filter(space=docs).exists()


def test_folder_entries_count_against_the_entry_limit(admin_client, docs, settings):
    settings.MARKDOWN_ZIP_MAX_FILES = 5
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("handbook/README.md", "# Home\n")
        for n in range(50):
            archive.writestr(zipfile.ZipInfo(f"handbook/d{n}/"), b"")
    response = upload(admin_client, docs, buffer.getvalue())
    assert response.context["report"] is None, "50 folders and a file passed a limit of 5 entries"
    assert "51 entries (files and folders); the limit is 5" in _refused(response)
    # Skipped entries count too: they were parsed all the same.
    settings.MARKDOWN_ZIP_MAX_FILES = 3
    mac = make_zip({"README.md": "# Home\n", **{f"__MACOSX/._{n}": b"x" for n in range(5)}}, prefix="")
    assert "6 entries" in _refused(upload(admin_client, docs, mac))
    assert not Page.objects.filter(space=docs).exists()


def test_an_upload_over_the_limits_is_refused_before_its_entries_are_read(admin_client, docs, settings, monkeypatch):
    listed: list[int] = []
    real_init = zipfile.ZipFile.__init__

    def counting_init(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        listed.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(zipfile.ZipFile, "__init__", counting_init)
    # Stored, not compressed: the upload itself is over the limit.
    settings.MARKDOWN_ZIP_MAX_BYTES = 20_000
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr("handbook/README.md", "# Home\n\n" + "x" * 30_000)
    listed.clear()
    assert "larger than 0 MB" in _refused(upload(admin_client, docs, buffer.getvalue()))
    assert listed == [], "ZipFile read the upload's entries"

    # A list of entries longer than 3 entries need (a KB each): refused from the end record alone.
    settings.MARKDOWN_ZIP_MAX_BYTES, settings.MARKDOWN_ZIP_MAX_FILES = 10_000_000, 3
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("handbook/README.md", "# Home\n")
        for n in range(200):
            archive.writestr(zipfile.ZipInfo(f"handbook/{'d' * 40}{n}/"), b"")
    listed.clear()
    assert "lists more than 3 entries" in _refused(upload(admin_client, docs, buffer.getvalue()))
    assert listed == [], "ZipFile read the upload's entries"
    assert not Page.objects.filter(space=docs).exists()


def test_python_tagged_front_matter_is_not_run(admin_client, docs, tmp_path):
    marker = tmp_path / "ran"
    tags = [
        f'!!python/object/apply:os.system ["touch {marker}"]',
        f'!!python/object/apply:subprocess.call [["touch", "{marker}"]]',
        "!!python/name:os.system",
        f'!!python/object/new:pathlib.Path ["{marker}"]',
    ]
    files = {f"p{n}.md": f"---\ntitle: {tag}\n---\n\n# Page {n}\n\nText {n}.\n" for n, tag in enumerate(tags)}
    report = upload(admin_client, docs, make_zip(files)).context["report"]
    assert not marker.exists()
    assert len(report.created) == len(tags)
    assert sorted(rel for rel, why in report.skipped if "front matter unreadable" in why) == sorted(files)
    titles = set(Page.objects.filter(space=docs).values_list("title", flat=True))
    assert titles == {f"Page {n}" for n in range(len(tags))}


HOSTILE_PAGE = """---
title: "<script>alert('title')</script> Hostile"
---

# Hostile

<script>alert('script')</script>
<img src="x" onerror="alert('img')">
<svg onload="alert('svg')"><circle r="1"/></svg>
<iframe src="https://evil.example/"></iframe>
<a href="javascript:alert('a')">html link</a> and <a href="JaVaScRiPt&colon;alert('b')">another</a>
[md link](javascript:alert('md')) and [data link](data:text/html;base64,PHNjcmlwdD4=)
<object data="x.swf"></object><embed src="x.swf">
<form action="https://evil.example/"><input name="q" formaction="javascript:alert(1)"></form>
<meta http-equiv="refresh" content="0;url=https://evil.example/">
<style>body { display: none }</style>
<base href="https://evil.example/">
<div style="background:url(javascript:alert('css'))">styled</div>
<details open ontoggle="alert('toggle')"><summary>More</summary>hidden</details>

![logo](logo.svg) and <img src="logo.svg" alt="again">
[the doc](page.html), [passwd](/etc/passwd), [hostname](../../../../../../etc/hostname)
"""
HOSTILE_SVG = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>'


def test_raw_html_and_svg_in_an_imported_page_never_reach_a_reader_as_markup(admin_client, docs, handbook):  # noqa: F811
    archive = make_zip({"hostile.md": HOSTILE_PAGE, "logo.svg": HOSTILE_SVG, "page.html": b"<script>x</script>"})
    report = upload(admin_client, docs, archive).context["report"]
    assert report.created == ["hostile.md"]
    page = Page.objects.get(space=docs)
    assert "Hostile" in page.title

    # Files: the SVG is stored (an allowed image) and served sandboxed; the HTML and outside paths are not.
    (logo,) = Attachment.objects.filter(page=page)
    assert logo.original_name == "logo.svg" and logo.content_type == "image/svg+xml"
    assert any(rel == "page.html" for rel, _why in report.skipped)
    assert {target for _rel, target in report.broken_links} >= {"/etc/passwd", "../../../../../../etc/hostname"}
    reader = _client(handbook.reader)
    served = reader.get(logo.get_absolute_url())
    assert served.status_code == 200 and served["X-Content-Type-Options"] == "nosniff"
    assert "sandbox" in served["Content-Security-Policy"] and "default-src 'none'" in served["Content-Security-Policy"]

    # The page, on the web and over the API: text, never markup.
    web = reader.get(page.get_absolute_url())
    assert web.status_code == 200
    assert _dangers(str(web.context["body_html"])) == []
    assert b"<script>alert(" not in web.content and b"&lt;script&gt;alert(&#x27;title&#x27;)" in web.content
    secret = token_create(user=handbook.reader, name="t", scope="read", days=1).secret
    api = Client().get(f"/api/v1/pages/{page.ref}", HTTP_AUTHORIZATION=f"Bearer {secret}").json()
    assert _dangers(api["html"]) == [], api["html"]
    assert f"/attachments/{logo.id}/" in api["html"]


def test_a_space_rebuilt_from_its_export_keeps_its_restricted_pages_restricted(handbook, make_space):  # noqa: F811
    from handbook.markdown_import.admin_upload import import_zip
    from handbook.markdown_import.export import space_export

    out = io.BytesIO()
    space_export(handbook.hr, out, user=None)  # manage.py export_space, as whoever runs the server
    with zipfile.ZipFile(io.BytesIO(out.getvalue())) as archive:
        assert any("salary-bands" in name for name in archive.namelist())
    restored = make_space("hr-restored", viewers=("staff",), editors=("hr-editors",))
    out.seek(0)
    import_zip(out, space=restored)
    assert Page.objects.filter(space=restored, title="Remote work").exists()
    assert Page.objects.visible_to(handbook.payroll).filter(space=restored, title="Salary bands").exists()
    leaked = Page.objects.visible_to(handbook.reader).filter(space=restored, title="Salary bands")
    assert not leaked.exists(), "the payroll-only page is open to all staff after the rebuild"
    # The front matter says so, by name; the open page says nothing.
    with zipfile.ZipFile(io.BytesIO(out.getvalue())) as archive:
        assert "\nrestricted_to:\n- payroll\n---\n" in archive.read("salary-bands.md").decode()
        assert "restricted_to" not in archive.read("remote-work.md").decode()


def test_a_restriction_the_import_cannot_apply_keeps_the_page_out(admin_client, docs, handbook):  # noqa: F811
    """Fail closed: a group that does not exist, a value that is not a list of names, a refused block
    that mentions the key: the page is not imported (not even as a draft, which every editor of the
    space reads), and the report says why."""
    files = {
        "README.md": "# Home\n\nThe handbook.\n",  # text: a folder page of a title alone makes no page
        "typo.md": "---\nrestricted_to: [payrol]\n---\n\n# Typo\n\nsalarycanary\n",
        "mapping.md": "---\nrestricted_to: {payroll: yes}\n---\n\n# Mapping\n\nsalarycanary\n",
        "blank.md": "---\nrestricted_to:\n---\n\n# Blank\n\nsalarycanary\n",
        "alias.md": "---\ng: &g payroll\nrestricted_to: [*g]\n---\n\n# Alias\n\nsalarycanary\n",
        "broken.md": "---\nrestricted_to: [payroll\n---\n\n# Broken\n\nsalarycanary\n",
        "fine.md": "---\nrestricted_to: payroll\n---\n\n# Fine\n\nsalarycanary\n",
    }
    report = upload(admin_client, docs, make_zip(files)).context["report"]
    assert sorted(report.created) == ["README.md", "fine.md"]
    reasons = dict(report.skipped)
    assert set(reasons) == {"typo.md", "mapping.md", "blank.md", "alias.md", "broken.md"}
    assert "do not exist (payrol)" in reasons["typo.md"]
    assert all("not imported" in why for why in reasons.values())
    assert not Page.objects.filter(body__contains="salarycanary").exclude(title="Fine").exists()
    fine = Page.objects.get(space=docs, title="Fine")
    assert list(fine.restricted_to_groups.values_list("name", flat=True)) == ["payroll"]
    assert not Page.objects.visible_to(handbook.reader).filter(pk=fine.pk).exists()
