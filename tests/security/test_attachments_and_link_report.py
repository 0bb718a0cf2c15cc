"""Attachments and the broken-link report (the admin zip import: ``test_admin_zip_import.py``).

What was tried:

- attachments: every allow-listed type is served with the allow-listed type (never the content's),
  ``X-Content-Type-Options: nosniff`` and the sandbox policy; only images and PDF inline; names
  with quotes, semicolons, line breaks, Unicode separators, folders and encoded words come back in
  one well-formed ``Content-Disposition`` naming exactly the stored name; the file stays in its
  folder; attachments of restricted, draft, deleted and moved pages are 404 to those who may not
  read (or edit) the page, byte for byte like an id that does not exist, even with a known ETag;
  a file name written into a page stays text;
- the broken-link report lists only pages the editor may edit and answers a link to a hidden page
  or file exactly like one to a missing page or file.
"""

from __future__ import annotations

import io
import uuid
from email.message import Message
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from handbook.attachment_models import Attachment
from handbook.attachments.services import ALLOWED_TYPES, attachment_create
from handbook.attachments.views import INLINE_TYPES
from handbook.models import Page
from tests.handbook.conftest import _fast_passwords_and_clean_cache, handbook  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _body(response: Any) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


class _Markup(HTMLParser):
    """Every tag and attribute of an HTML fragment, as a browser would parse it (``_dangers`` and
    ``_client`` serve the zip import's tests too: ``test_admin_zip_import.py``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(name, value or "") for name, value in attrs]

    handle_startendtag = handle_starttag


def _dangers(fragment: str) -> list[str]:
    markup = _Markup()
    markup.feed(fragment)
    bad_tags = {"script", "iframe", "object", "embed", "form", "input", "meta", "style", "base", "svg", "link"}
    found = [f"<{t}>" for t in markup.tags if t in bad_tags]
    for name, value in markup.attrs:
        compact = "".join(value.split()).lower()
        if name.startswith("on") or name in ("style", "srcdoc", "formaction"):
            found.append(f"{name}={value!r}")
        if name in ("href", "src", "action", "xlink:href") and compact.startswith(
            ("javascript:", "data:", "vbscript:")
        ):
            found.append(f"{name}={value!r}")
    return found


# --- attachments ------------------------------------------------------------------------------------

ODD_NAMES = [
    'plan "v2".pdf',
    'a";filename="evil.html";x=".png',
    "semi;colon=1.txt",
    "line\r\nSet-Cookie: stolen=1\r\n.csv",
    "sep\u2028arator\u0085.md",
    "back\\slash\\..\\x.gif",
    "=?utf-8?b?ZXZpbC5odG1s?=.pdf",
    "résumé été.docx",
    "%2e%2e%2fescaped.svg",
    "tab\tand\x00nul.webp",
    "x" * 300 + ".jpeg",
]


def _disposition(header: str) -> tuple[str, str | None]:
    message = Message()
    message["Content-Disposition"] = header
    return message.get_content_disposition() or "", message.get_filename()


def test_every_type_and_odd_name_is_served_typed_nosniff_sandboxed_and_named_exactly(handbook, settings):  # noqa: F811
    html_payload = b"<html><body><script>alert(document.cookie)</script></body></html>"
    created = [
        attachment_create(page=handbook.remote, stream=io.BytesIO(html_payload), name=f"file.{ext}")
        for ext in ALLOWED_TYPES
    ]
    created += [attachment_create(page=handbook.remote, stream=io.BytesIO(b"data"), name=name) for name in ODD_NAMES]
    client = _client(handbook.reader)
    for attachment in created:
        response = client.get(attachment.get_absolute_url())
        assert response.status_code == 200, attachment.original_name
        stored = Path(attachment.file.path).resolve()
        assert stored.is_relative_to(Path(settings.MEDIA_ROOT).resolve() / "attachments" / attachment.id.hex)
        expected_type = ALLOWED_TYPES[attachment.original_name.rpartition(".")[2].lower()]
        assert response["Content-Type"] == expected_type, attachment.original_name
        assert response["X-Content-Type-Options"] == "nosniff"
        policy = response["Content-Security-Policy"]
        assert "sandbox" in policy and "default-src 'none'" in policy and "script-src" not in policy
        header = response["Content-Disposition"]
        assert "\r" not in header and "\n" not in header, header
        kind, filename = _disposition(header)
        assert kind == ("inline" if expected_type in INLINE_TYPES else "attachment"), header
        assert filename == attachment.original_name, (header, attachment.original_name)
        assert not any(ch in attachment.original_name for ch in "\r\n\t\x00\x85/\\")
    assert not any(a.content_type.startswith("text/html") for a in created)


def test_a_file_name_written_into_the_page_stays_text(handbook):  # noqa: F811
    """The editor inserts ``attachment.markdown()`` into the page: a name cannot become markup or a link."""
    from handbook.markdown import render_markdown

    names = [
        "<img src=x onerror=alert(1)>.png",
        "x](javascript:alert(1)).pdf",
        '"><script>alert(1)</script>.svg',
        "a` <b onmouseover=alert(1)>b`.txt",
        "[x]: javascript:alert(1).csv",
    ]
    for name in names:
        attachment = attachment_create(page=handbook.remote, stream=io.BytesIO(b"x"), name=name)
        rendered = render_markdown(f"Files:\n\n{attachment.markdown()}\n")
        assert _dangers(rendered) == [], (name, rendered)
        assert attachment.get_absolute_url() in rendered, (name, rendered)


@pytest.fixture
def files(handbook, make_user):  # noqa: F811
    """One attachment per state of its page; ``reader`` and ``editor`` may not reach any of them."""
    from handbook.services import page_create, page_delete, page_move

    def attach(page: Page, name: str) -> Attachment:
        return attachment_create(page=page, stream=io.BytesIO(b"secret " + name.encode()), name=name)

    restricted_draft = page_create(
        space=handbook.hr,
        title="Pay rise plan",
        body="x",
        publish=False,
        restricted_to=list(handbook.payroll.groups.filter(name="payroll")),
    )
    deleted_draft = page_create(space=handbook.hr, title="Dropped draft", body="x", publish=False)
    moved = page_create(space=handbook.hr, title="Moved away", body="x")
    found = {
        "restricted": attach(handbook.salary, "grid.png"),
        "other space": attach(handbook.minutes, "deal.pdf"),
        "restricted draft": attach(restricted_draft, "rise.csv"),
        "deleted draft": attach(deleted_draft, "dropped.txt"),
        "moved to another space": attach(moved, "moved.png"),
    }
    page_delete(page=deleted_draft)
    page_move(page=moved, space=handbook.secret)
    deleted = page_create(space=handbook.hr, title="Old page", body="x")
    found["deleted"] = attach(deleted, "old.svg")
    page_delete(page=deleted)
    return found


def test_attachments_of_pages_one_may_not_reach_are_404_like_a_missing_id(handbook, files, make_user):  # noqa: F811
    missing = f"/attachments/{uuid.uuid4()}/grid.png"
    root = make_user("root", superuser=True)
    for user in (handbook.reader, handbook.editor):
        client = _client(user)
        control = client.get(missing)
        assert control.status_code == 404
        for kind, attachment in files.items():
            response = client.get(attachment.get_absolute_url())
            assert (response.status_code, response.content) == (404, control.content), kind
            # A known ETag does not turn the 404 into a 304: the permission is checked first.
            etag = f'"{attachment.sha256}"'
            assert client.get(attachment.get_absolute_url(), HTTP_IF_NONE_MATCH=etag).status_code == 404, kind
    # A superuser reads what is published or a draft, never a deleted page's file.
    superuser = _client(root)
    assert superuser.get(files["deleted"].get_absolute_url()).status_code == 404
    assert superuser.get(files["deleted draft"].get_absolute_url()).status_code == 404
    # The restricted draft is for its editors inside the restriction (the checks above can fail).
    handbook.editor.groups.add(*handbook.payroll.groups.filter(name="payroll"))
    response = _client(handbook.editor).get(files["restricted draft"].get_absolute_url())
    assert response.status_code == 200 and _body(response) == b"secret rise.csv"


# --- the broken-link report --------------------------------------------------------------------------


def test_the_broken_link_report_answers_hidden_targets_like_missing_ones(handbook, make_user):  # noqa: F811
    from handbook.services import page_create, page_rename, page_save

    grid = attachment_create(page=handbook.salary, stream=io.BytesIO(b"grid"), name="grid.png")
    own = attachment_create(page=handbook.remote, stream=io.BytesIO(b"own"), name="own.txt")
    page_rename(page=handbook.salary, title="Salary grid")  # the old address stays as a redirect
    draft = page_create(space=handbook.hr, title="Draft plan", body="x", publish=False)
    page_save(
        page=Page.objects.get(pk=handbook.salary.pk),
        title="Salary grid",
        body="# Salary grid\n\n[target](/spaces/hr/secret-target-zz/)\n",
    )
    hidden = {
        "/spaces/hr/salary-grid/": "page",
        "/spaces/hr/salary-bands/": "page",
        "/spaces/board/board-minutes/": "page",
        f"/attachments/{grid.id}/grid.png": "attachment",
    }
    missing = {
        "/spaces/hr/no-such-page/": "page",
        f"/attachments/{uuid.uuid4()}/x.png": "attachment",
    }
    fine = ["/spaces/it/vpn-access/", own.get_absolute_url(), f"/spaces/hr/{draft.slug}/"]
    hostile = '/x"><script>alert(1)</script>'
    links = "\n".join(f"- [link {n}]({t})" for n, t in enumerate([*hidden, *missing, *fine]))
    page_save(page=handbook.remote, title="Remote work", body=f"# Remote work\n\n{links}\n\n[odd]({hostile})\n")

    editor = _client(handbook.editor)
    response = editor.get("/spaces/hr/_links/")
    assert response.status_code == 200
    reported = {link.target: link.reason for link in response.context["broken"]}
    assert reported == {**hidden, **missing, hostile: "path"}
    assert {link.page.pk for link in response.context["broken"]} == {handbook.remote.pk}
    html = response.content.decode()
    assert "Salary grid" not in html and "secret-target-zz" not in html and "Board minutes" not in html
    assert "<script>alert(1)</script>" not in html
    rows = html.split("<tr>")[2:]
    by_target = {t: next(r for r in rows if f"<code>{t}</code>" in r) for t in (*hidden, *missing) if "<" not in t}
    for target, reason in hidden.items():
        twin = next(t for t, r in missing.items() if r == reason)
        assert by_target[target].replace(target, "T") == by_target[twin].replace(twin, "T"), target

    # An editor inside the restriction: those targets exist for them, and the hidden page's link shows.
    insider = make_user("insider", "staff", "hr-editors", "payroll")
    reported = {link.target for link in _client(insider).get("/spaces/hr/_links/").context["broken"]}
    assert reported == {*missing, hostile, "/spaces/hr/secret-target-zz/", "/spaces/board/board-minutes/"}
    # Readers may not see the report; outsiders are told the space does not exist.
    assert _client(handbook.reader).get("/spaces/hr/_links/").status_code == 403
    assert _client(handbook.outsider).get("/spaces/hr/_links/").status_code == 404
