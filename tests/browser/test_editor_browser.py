"""In Chromium: the Markdown editor (EasyMDE, static/js/editor.js) over the page form.

It loads with its toolbar, builds a table from the toolbar, uploads a pasted or dropped image
and inserts its Markdown (on New page too, before the first save: the picture is in the preview
and on the published page), saves a page it was never asked to change byte for byte as it was,
and the form still posts with JavaScript off. No console or CSP error, no other origin.
"""

from __future__ import annotations

import re
import struct
import zlib
from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.browser.editor import hand_file, new_page_typed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Tables, a front-matter-like block, headings, links, trailing spaces (a Markdown line break),
# a tab and a non-breaking space: what an editor must hand back untouched.
ROUND_TRIP = (
    "---\ntitle: not front matter\nowner: hr\n---\n\n"
    "# Travel expenses\n\n"
    'Train tickets are booked by the [travel desk](https://example.com/desk "Desk").  \n'
    "Second line after a hard break.\n\n"
    "## Caps\n\n"
    "| City | Cap |\n|:--- | ---:|\n| Paris | 150\u00a0€ |\n| Lyon |  110 € |\n\n"
    "*  loose list item\n*\tafter a tab\n\n"
    "```\ncode\twith a tab   \n```\n"
    "<https://example.com/auto>\n\n"
    "Trailing spaces at the very end   "
)
BODY = "# Remote work\n\nStaff may work from home.\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


# A real 2×2 picture: the browser decodes it (naturalWidth), so the test sees it shown, not a broken icon.
PICTURE = (
    b"\x89PNG\r\n\x1a\n"
    + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
    + _png_chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00\x00\xff\x00" * 2))
    + _png_chunk(b"IEND", b"")
)


@pytest.fixture
def site(make_user, make_space, make_page, settings, tmp_path) -> Any:  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    return SimpleNamespace(
        hr=hr,
        remote=make_page(hr, "Remote work", BODY, index=False),
        travel=make_page(hr, "Travel expenses", ROUND_TRIP, index=False),
        editor=make_user("editor", "staff", "hr-editors"),
    )


def _open_editor(page: Any, base: str, slug: str) -> None:
    log_in(page, base, "editor", "pw-editor")
    page.goto(f"{base}/spaces/hr/{slug}/edit/")
    expect(page.locator(".EasyMDEContainer .CodeMirror")).to_be_visible()


def _editor_text(page: Any) -> str:
    return str(page.locator(".CodeMirror").evaluate("el => el.CodeMirror.getValue()"))


def test_the_editor_loads_with_a_toolbar_and_builds_a_table(watched, live_server, site):
    page = watched.page
    _open_editor(page, live_server.url, "remote-work")
    toolbar = page.get_by_role("toolbar", name="Formatting")
    expect(toolbar).to_be_visible()
    for name in ("Bold", "Italic", "Heading", "Bulleted list", "Link", "Table", "Image or file", "Preview"):
        expect(toolbar.get_by_role("button", name=name, exact=True)).to_be_visible()
    # The toolbar is one tab stop; the arrow keys walk it; Tab leaves the text as it leaves a textarea.
    expect(toolbar.locator("button[tabindex='0']")).to_have_count(1)
    toolbar.get_by_role("button", name="Bold").focus()
    page.keyboard.press("ArrowRight")
    expect(toolbar.get_by_role("button", name="Italic")).to_be_focused()
    page.locator(".CodeMirror").evaluate("el => el.CodeMirror.focus()")
    page.keyboard.press("Tab")
    assert page.evaluate("() => !document.activeElement.closest('.CodeMirror')")
    assert _editor_text(page) == BODY  # what the page holds, nothing added on load
    expect(page.get_by_role("textbox", name="Text (Markdown)")).to_be_visible()  # what a screen reader meets

    page.locator(".CodeMirror").evaluate("el => { el.CodeMirror.focus(); el.CodeMirror.execCommand('goDocEnd'); }")
    toolbar.get_by_role("button", name="Table", exact=True).click()
    table = r"\| Column \| Column \|\n\| --- \| --- \|\n\| Text \| Text \|"
    expect(page.locator("#id_body")).to_have_value(re.compile(table))
    expect(page.locator("#preview table")).to_be_visible()  # the live preview beside the editor followed

    # The editor's own preview renders through the server (its sanitiser, its heading ids).
    toolbar.get_by_role("button", name="Preview", exact=True).click()
    expect(page.locator(".EasyMDEContainer .editor-preview-full h1#remote-work")).to_have_text("Remote work")
    expect(page.locator(".EasyMDEContainer .editor-preview-full table")).to_be_visible()


@pytest.mark.parametrize("how", ["paste", "drop"])
def test_a_pasted_or_dropped_image_is_uploaded_and_its_markdown_inserted(watched, live_server, site, how):
    page = watched.page
    _open_editor(page, live_server.url, "remote-work")
    page.locator(".CodeMirror").evaluate("el => { el.CodeMirror.focus(); el.CodeMirror.execCommand('goDocEnd'); }")
    hand_file(page, how, "screen.png", PNG)
    expect(page.locator(".js-attachment-status")).to_contain_text("screen.png uploaded")
    expect(page.locator("#id_body")).to_have_value(
        re.compile(
            r"^# Remote work\n\nStaff may work from home\.\n\n"
            r"!\[screen\.png\]\(/attachments/[0-9a-f-]+/screen\.png\)\n$"
        )
    )
    expect(page.locator("#preview img[alt='screen.png']")).to_have_count(1)
    assert site.remote.attachments.count() == 1


def test_a_page_saved_without_a_change_is_stored_byte_for_byte(watched, live_server, site):
    page = watched.page
    _open_editor(page, live_server.url, "travel-expenses")
    assert _editor_text(page) == ROUND_TRIP
    page.get_by_role("button", name="Save draft").click()
    expect(page).to_have_url(f"{live_server.url}/spaces/hr/travel-expenses/")
    site.travel.refresh_from_db()
    assert site.travel.revisions.count() == 1
    assert site.travel.revisions.get().body == ROUND_TRIP

    # A change made in the editor is saved with everything else as it was.
    page.goto(f"{live_server.url}/spaces/hr/travel-expenses/edit/")
    page.locator(".CodeMirror").evaluate("el => { el.CodeMirror.focus(); el.CodeMirror.execCommand('goDocEnd'); }")
    page.keyboard.type("!")
    page.get_by_role("button", name="Save draft").click()
    expect(page.locator(".messages")).to_contain_text("Draft saved as revision 2.")
    assert site.travel.revisions.get(number=2).body == ROUND_TRIP + "!"


def test_an_image_pasted_into_a_new_page_is_in_the_preview_and_on_the_published_page(watched, live_server, site):
    from handbook.attachment_models import Attachment
    from handbook.models import Page

    page = watched.page
    log_in(page, live_server.url, "editor", "pw-editor")
    new_page_typed(page, live_server.url, "hr", "Parking", "# Parking\n\nThe car park map:")
    expect(page.locator(".EasyMDEContainer .CodeMirror")).to_be_visible()
    expect(page.get_by_role("button", name="Image or file", exact=True)).to_be_visible()
    hand_file(page, "paste", "map.png", PICTURE)
    expect(page.locator(".js-attachment-status")).to_contain_text("map.png uploaded")
    expect(page.locator("#id_body")).to_have_value(
        re.compile(r"^# Parking\n\nThe car park map:\n\n!\[map\.png\]\(/attachments/[0-9a-f-]+/map\.png\)\n$")
    )
    # The preview shows the picture: the draft's file is served to its uploader.
    image = page.locator("#preview img[alt='map.png']")
    expect(image).to_have_count(1)
    page.wait_for_function("() => document.querySelector(\"#preview img[alt='map.png']\").naturalWidth > 0")
    draft = Attachment.objects.get()
    assert draft.page is None and draft.uploaded_by == site.editor

    page.get_by_role("button", name="Publish", exact=True).click()
    expect(page).to_have_url(f"{live_server.url}/spaces/hr/parking/")
    published = page.locator(".prose img[alt='map.png']")
    expect(published).to_have_count(1)
    page.wait_for_function("() => document.querySelector(\".prose img[alt='map.png']\").naturalWidth > 0")
    draft.refresh_from_db()
    assert draft.page == Page.objects.get(title="Parking") and draft.draft_token == ""
    assert draft.get_absolute_url() in draft.page.body


def test_a_file_dropped_onto_a_new_page_is_linked_and_kept_with_the_page(watched, live_server, site):
    from handbook.models import Page

    page = watched.page
    log_in(page, live_server.url, "editor", "pw-editor")
    new_page_typed(page, live_server.url, "hr", "Forms", "# Forms")
    hand_file(page, "drop", "claims.csv", b"a,b\n1,2\n", "text/csv")
    expect(page.locator(".js-attachment-status")).to_contain_text("claims.csv uploaded")
    expect(page.locator("#id_body")).to_have_value(
        re.compile(r"^# Forms\n\n\[claims\.csv\]\(/attachments/[0-9a-f-]+/claims\.csv\)\n$")
    )
    page.get_by_role("button", name="Save draft").click()
    expect(page.locator(".messages")).to_contain_text("Draft saved.")
    saved = Page.objects.get(title="Forms")
    assert list(saved.attachments.values_list("original_name", flat=True)) == ["claims.csv"]


def test_without_javascript_the_plain_form_posts(browser, live_server, site, settings_for_browser):
    context = browser.new_context(java_script_enabled=False, locale="en-GB")
    try:
        page = context.new_page()
        log_in(page, live_server.url, "editor", "pw-editor")
        page.goto(f"{live_server.url}/spaces/hr/remote-work/edit/")
        expect(page.locator(".EasyMDEContainer")).to_have_count(0)
        page.get_by_label("Text (Markdown)").fill(BODY + "\nDesks are booked a day ahead.\n")
        page.get_by_role("button", name="Publish", exact=True).click()
        expect(page.locator(".prose")).to_contain_text("Desks are booked a day ahead.")
        site.remote.refresh_from_db()
        assert site.remote.body == BODY + "\nDesks are booked a day ahead.\n"
    finally:
        context.close()


def test_without_javascript_a_new_page_uploads_a_file_before_its_first_save(
    browser, live_server, site, settings_for_browser, tmp_path
):
    from handbook.models import Page

    picture = tmp_path / "map.png"
    picture.write_bytes(PICTURE)
    context = browser.new_context(java_script_enabled=False, locale="en-GB")
    try:
        page = context.new_page()
        log_in(page, live_server.url, "editor", "pw-editor")
        page.goto(f"{live_server.url}/spaces/hr/_new/")
        page.get_by_label("Title").fill("Parking")
        page.get_by_label("Text (Markdown)").fill("# Parking\n\nThe car park map:")
        page.get_by_label("Add a file (or drop it onto the text)").set_input_files(str(picture))
        page.get_by_role("button", name="Upload", exact=True).click()
        expect(page.locator(".messages")).to_contain_text("File uploaded")
        expect(page.get_by_label("Text (Markdown)")).to_have_value(
            re.compile(r"^# Parking\n\nThe car park map:\n\n!\[map\.png\]\(/attachments/[0-9a-f-]+/map\.png\)\n$")
        )
        page.get_by_role("button", name="Publish", exact=True).click()
        expect(page).to_have_url(f"{live_server.url}/spaces/hr/parking/")
        expect(page.locator(".prose img[alt='map.png']")).to_have_count(1)
        src = page.locator(".prose img[alt='map.png']").get_attribute("src")
        served = page.request.get(f"{live_server.url}{src}")  # with the reader's cookies, as the <img> asks
        assert served.status == 200 and served.body() == PICTURE
        saved = Page.objects.get(title="Parking")
        assert list(saved.attachments.values_list("original_name", flat=True)) == ["map.png"]
    finally:
        context.close()


def test_the_editor_speaks_french(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "editor", "pw-editor")
    page.context.add_cookies([{"name": "django_language", "value": "fr", "url": live_server.url}])
    page.goto(f"{live_server.url}/spaces/hr/remote-work/edit/")
    toolbar = page.get_by_role("toolbar", name="Mise en forme")
    page.locator(".CodeMirror").evaluate("el => { el.CodeMirror.focus(); el.CodeMirror.execCommand('goDocEnd'); }")
    toolbar.get_by_role("button", name="Tableau", exact=True).click()
    table = r"\| Colonne \| Colonne \|\n\| --- \| --- \|\n\| Texte \|"
    expect(page.locator("#id_body")).to_have_value(re.compile(table))
    expect(toolbar.get_by_role("button", name="Gras")).to_have_attribute("title", re.compile("^Gras"))
