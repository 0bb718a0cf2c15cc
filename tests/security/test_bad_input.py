"""Bad input everywhere: huge, empty, binary, absurd and broken — a clear message or a
rendered page, never a 500, and nothing the user typed is lost.

- Query strings on /search/ (full page and htmx fragment), and the same text asked
  by POST to /ask/ and /ask/stream/ (a GET of /ask/ only shows the form).
- Broken Markdown saved through the editor: either a revision holds exactly the
  submitted text and the page renders, or the form comes back with an error and
  the text still in it.
- JSONL import lines not covered by tests/handbook/test_import.py: binary
  garbage and a line over the size limit.
"""

from __future__ import annotations

import json
import os
import random
from io import StringIO
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

import pytest
from django.core.management import call_command

from handbook.models import Page, Revision

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
MB = 1_000_000


@pytest.fixture
def site(make_user, make_space, make_page, no_embeddings, settings) -> Any:  # type: ignore[no-untyped-def]
    from django.core.cache import cache

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.SEARCH_RATE_LIMIT = settings.ASK_RATE_LIMIT = "100000/m"
    cache.clear()
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    page = make_page(hr, "Remote work", "# Remote work\n\nStaff may work from home up to three days a week.\n")
    return SimpleNamespace(hr=hr, page=page, editor=make_user("editor", "staff", "hr-editors"))


# --- query strings -------------------------------------------------------------------

_rng = random.Random(20240601)
BINARY = bytes(_rng.randrange(256) for _ in range(4096)).decode("latin-1")  # every byte value, as text
QUERIES = {
    "empty": "",
    "blank": " \t\n ",
    "huge_1mb": "leave " * (MB // 6),
    "huge_1mb_one_word": "x" * MB,
    "nul_and_controls": "remote\x00work\x01\x02\x1b[31m\x07\x7f\u200b\ufeff",
    "binary": BINARY,
    "quotes_10k": '"' * 10_000,
    "minus_10k": "-" * 10_000,
    "operators_10k": "&|!():*" * 1500,
    "quotes_short": '"' * 999,
    "operators_short": "&|!():*<>'\\" * 50,
    "unclosed_phrase": '"remote work -',
    "only_exclusions": "-remote -work -" + '"three days"',
    "many_terms": " ".join(f"w{i}" for i in range(500)),
    "tsquery_syntax": "remote:* & !work | (days <-> week) <2> x:A",
    "sql": "'; DROP TABLE handbook_page; -- \" OR 1=1",
    "unicode_mix": "ﬁ ǅ ß İ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀 \u0301\u0301\u0301 עברית \u202e",
    "lone_question": "?",
}


def _get(client: Any, path: str, query: str, **extra: Any) -> Any:
    # Asking is a POST; searching (and showing the Ask form) a GET.
    send = client.post if path.startswith("/ask/") else client.get
    return send(path, {"q": query}, **extra)


def _stream_events(response: Any) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for block in b"".join(response.streaming_content).decode().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.strip().splitlines() if ": " in line)
        if "event" in lines:
            events.append((lines["event"], json.loads(lines["data"])))
    return events


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_bad_query_strings_on_search_and_ask(client, site, name):
    query = QUERIES[name]
    client.force_login(site.editor)
    for path, extra in (("/search/", {}), ("/search/", HX), ("/ask/", {}), ("/ask/", HX)):
        response = _get(client, path, query, **extra)
        assert response.status_code == 200, (path, extra, response.status_code)
        html = response.content.decode()
        if len(query) > 2000 and path == "/ask/" and query.strip():
            assert "too long" in html, path  # a clear message, not a silent nothing
        if len(" ".join(query.split())) > 1000 and path == "/search/":
            assert "too long" in html and 'role="alert"' in html
    events = _stream_events(_get(client, "/ask/stream/", query))
    assert events, "the stream always ends with an event"
    kinds = [kind for kind, _data in events]
    assert kinds[-1] in ("done", "ask-error"), kinds
    if kinds[-1] == "ask-error":
        assert events[-1][1]["message"].strip()


@pytest.mark.parametrize(
    "raw",
    [
        "q=%FF%FE%00%C0%AF%ED%A0%80",  # invalid UTF-8, NUL, overlong, surrogate
        "q=" + "%00" * 5000,
        "q=a&q=b&q=%FF",  # repeated parameter
        "q=" + quote("é" * 600) + "&page=99999999999999999999999&space=%00..%2F&lang=%FF",
        "q=remote&page=-1&space=" + "x" * 5000 + "&lang=" + "y" * 5000,
        "q",  # no "="
        "=&&&=&q=&",
        "q=remote%",  # broken percent escape
        "q=" + "%25" * 20_000,
    ],
)
def test_malformed_raw_query_strings(client, site, raw):
    client.force_login(site.editor)
    for path in ("/search/", "/ask/"):
        response = client.get(f"{path}?{raw}")
        assert response.status_code == 200, (path, raw[:60])
    for path in ("/ask/", "/ask/stream/"):
        response = client.post(path, raw, content_type="application/x-www-form-urlencoded")
        assert response.status_code == 200, (path, raw[:60])
        if path == "/ask/stream/":
            assert _stream_events(response)


def test_too_many_parameters_is_a_400_not_a_500(client, site):
    client.force_login(site.editor)
    raw = "&".join(f"p{i}=x" for i in range(5000)) + "&q=remote"
    for path in ("/search/", "/ask/"):
        assert client.get(f"{path}?{raw}").status_code == 400


def test_huge_query_string_is_answered_quickly(client, site):
    """A 1 MB query is refused by its length before any parsing or SQL."""
    import time

    client.force_login(site.editor)
    started = time.monotonic()
    for path in ("/search/", "/ask/"):
        assert "too long" in _get(client, path, "remote " * (MB // 7)).content.decode()
    assert time.monotonic() - started < 10


# --- broken Markdown through the editor ---------------------------------------------------

BODIES = {
    "empty": "",
    "unclosed_fence": "# Title\n\n```python\nprint('never closed')\n\n## Not a heading\n",
    "unclosed_tilde_fence": "~~~\n" + "code line\n" * 1000,
    "nested_lists_700_levels": "".join("  " * i + "- item\n" for i in range(700)),  # ~490k characters
    "nested_list_markers_one_line": "- " * 10_000 + "deep",
    "nested_quotes_10k": "> " * 10_000 + "deep quote",
    "nested_quote_lines": "".join(">" * i + " line\n" for i in range(1, 900)),
    "nested_brackets": "[" * 10_000 + "x" + "](" * 5000 + ")" * 5000,
    "nested_emphasis": "*_" * 10_000 + "x" + "_*" * 10_000,
    "unclosed_html": "<div><table><tr><td>" * 2000 + "<script>",
    "backticks": "`" * 10_000 + " code " + "`" * 9_999,
    "headings_only": "#" * 7 + " x\n" + "\n".join("#" * (i % 6 + 1) + " " + "h" * 300 for i in range(1500)),
    "table_10k_columns": "|" + "c|" * 10_000 + "\n|" + "-|" * 10_000 + "\n|" + "v|" * 10_000 + "\n",
    "link_reference_storm": "\n".join(f"[r{i}]: /x{i}" for i in range(5000))
    + "\n"
    + " ".join(f"[r{i}]" for i in range(5000)),
    "control_characters": "Tab\there, bell\x07, escape\x1b[31m, form feed\x0c, vertical\x0b, DEL\x7f, BOM\ufeff.",
    "crlf_and_cr": "line one\r\nline two\rline three\n\r\n",
    "half_mb": ("A sentence about remote work and leave. " * 40 + "\n\n") * 300,
    "invalid_entities": "&#0; &#xD800; &#x110000; &#99999999999; &bogus; &amp",
}


def _edit(client: Any, page: Page, body: str, title: str = "Remote work", action: str = "publish") -> Any:
    latest = page.revisions.order_by("-number").first()
    return client.post(
        f"/spaces/{page.space.slug}/{page.slug}/edit/",
        {"title": title, "body": body, "base_number": latest.number, "action": action, "note": "bad input"},
    )


@pytest.mark.parametrize("name", sorted(BODIES))
def test_broken_markdown_is_saved_exactly_and_renders(client, site, name, django_capture_on_commit_callbacks):
    """Saved as sent, but for line breaks: a browser sends every one of a textarea's as CRLF, and
    the page keeps them as LF (handbook.forms.MarkdownField)."""
    body = BODIES[name]
    client.force_login(site.editor)
    with django_capture_on_commit_callbacks(execute=True):  # reindex and summarise run too
        response = _edit(client, site.page, body)
    assert response.status_code == 302, response.status_code
    revision = Revision.objects.filter(page=site.page).order_by("-number").first()
    assert revision.body == as_stored(body)  # nothing lost, nothing changed but line breaks
    site.page.refresh_from_db()
    assert site.page.published_revision_id == revision.pk
    for path in (
        f"/spaces/hr/{site.page.slug}/",
        f"/spaces/hr/{site.page.slug}/edit/",
        f"/spaces/hr/{site.page.slug}/history/{revision.number}/",
        "/search/?q=remote+work",
    ):
        assert client.get(path).status_code == 200, path
    preview = client.post("/preview/", {"body": body})
    assert preview.status_code == 200


@pytest.mark.parametrize(
    ("title", "body", "message"),
    [
        ("Remote work", "x" * MB, "at most 500000 characters"),  # 1 MB body: over the limit
        ("Remote work", "before\x00after", "Null characters are not allowed"),
        ("", "kept body text", "This field is required"),
        ("   ", "kept body text", "This field is required"),
        ("T" * 301, "kept body text", "at most 300 characters"),
    ],
    ids=["body_1mb", "body_nul", "title_empty", "title_blank", "title_301"],
)
def test_rejected_edit_keeps_the_text_in_the_form(client, site, title, body, message):
    client.force_login(site.editor)
    before = Revision.objects.filter(page=site.page).count()
    response = _edit(client, site.page, body, title=title)
    assert response.status_code == 400
    html = response.content.decode()
    assert message in html
    assert 'aria-invalid="true"' in html
    assert Revision.objects.filter(page=site.page).count() == before
    # The submitted text is still in the editor, escaped.
    from django.utils.html import escape

    assert escape(body.replace("\x00", "")) in html or escape(body) in html


def test_binary_body_round_trips(client, site):
    """Every printable byte value (as text) is stored and shown back exactly, line breaks as LF."""
    body = "".join(ch for ch in BINARY if ch != "\x00")
    client.force_login(site.editor)
    assert _edit(client, site.page, body).status_code == 302
    assert site.page.revisions.order_by("-number").first().body == as_stored(body)
    assert client.get(f"/spaces/hr/{site.page.slug}/").status_code == 200


def as_stored(body: str) -> str:
    """A body as the page keeps it: CRLF and lone CR become LF, every other character as it was."""
    return body.replace("\r\n", "\n").replace("\r", "\n")


def test_create_with_bad_input_keeps_the_text(client, site):
    client.force_login(site.editor)
    response = client.post(
        "/spaces/hr/_new/", {"title": "", "language": "xx", "body": "my draft\x00", "action": "draft"}
    )
    assert response.status_code == 200  # the create form re-renders with its errors
    html = response.content.decode()
    assert "This field is required" in html and "my draft" in html
    assert not Page.objects.filter(title="").exists()


# --- JSONL import: what tests/handbook/test_import.py does not cover ---------------------------


def _load(path: Any) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("load_corpus", str(path), "--space", "people", verbosity=0, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_binary_garbage_and_a_6mb_line_are_skipped_and_the_rest_imports(tmp_path, no_embeddings, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    good = [json.dumps({"id": f"ok:{i}", "title": f"Good {i}", "body": "Fine.", "lang": "en"}) for i in range(3)]
    garbage = os.urandom(64 * 1024).replace(b"\n", b"").replace(b"\r", b"")
    big = json.dumps({"id": "big", "title": "Big", "body": "x" * 6_000_000, "lang": "en"})
    path = tmp_path / "c.jsonl"
    path.write_bytes(
        b"\n".join(
            [
                good[0].encode(),
                garbage,  # 2: binary garbage
                big.encode(),  # 3: a 6 MB line
                good[1].encode(),
                b"\xef\xbb\xbf" + good[2].encode(),  # 5: UTF-8 BOM before the JSON
                b"\x00" * 100,  # 6: NULs only
            ]
        )
        + b"\n"
    )
    out, err = _load(path)
    reported = {int(line.split(":")[1]): line for line in err.strip().splitlines()}
    assert 2 in reported and 3 in reported and 6 in reported
    assert "larger than 5 MB" in reported[3]
    assert all(": skipped: " in line for line in reported.values())
    assert {"ok:0", "ok:1"} <= set(Page.objects.values_list("ref", flat=True))
    assert not Page.objects.filter(ref="big").exists()
    assert f"{len(reported)} bad line(s) skipped" in out


def test_lone_surrogate_in_jsonl_is_a_bad_line_not_a_crash(tmp_path, no_embeddings, settings):
    """JSON may spell a lone UTF-16 surrogate ("\\ud800"); PostgreSQL cannot store it."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    path = tmp_path / "c.jsonl"
    path.write_text(
        '{"id": "sur", "title": "Surrogate \\ud800", "body": "x \\udfff y", "lang": "en"}\n'
        '{"id": "ok:1", "title": "After", "body": "Still imported.", "lang": "en"}\n'
    )
    out, err = _load(path)
    assert Page.objects.filter(ref="ok:1").exists(), (out, err)
    assert f"{path}:1: skipped:" in err
