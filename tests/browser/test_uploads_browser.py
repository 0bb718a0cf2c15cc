"""In Chromium: an upload lands where the editor means it, and a rename
carries the page's opening heading with it."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.browser.editor import editor_place_cursor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BODY = "# Remote work\n\nStaff may work from home.\n\n## Equipment\n\nA second screen is lent on request.\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.fixture
def site(make_user, make_space, make_page, settings, tmp_path) -> Any:  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    return SimpleNamespace(
        remote=make_page(hr, "Remote work", BODY, index=False),
        editor=make_user("editor", "staff", "hr-editors"),
    )


def _upload(page: Any, name: str) -> None:
    count = page.locator("#id_body").input_value().count("/attachments/")
    page.locator("#id_file").set_input_files({"name": name, "mimeType": "image/png", "buffer": PNG})
    expect(page.locator("#id_body")).to_have_value(re.compile(r"/attachments/[\s\S]*" * (count + 1)))


def test_an_upload_without_a_cursor_goes_to_the_end_and_one_with_a_cursor_goes_there(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "editor", "pw-editor")
    page.goto(f"{live_server.url}/spaces/hr/remote-work/edit/")

    _upload(page, "plan.png")  # the text was never clicked
    text = page.locator("#id_body").input_value()
    assert text.startswith("# Remote work\n"), text[:80]
    assert re.search(r"A second screen is lent on request\.\n\n!\[plan\.png\]\(/attachments/[^)]+\)\n$", text), text

    # With the cursor placed after the first paragraph, the next file goes there.
    position = text.index("## Equipment")
    editor_place_cursor(page, position)
    _upload(page, "screen.png")
    text = page.locator("#id_body").input_value()
    assert text.startswith("# Remote work\n")
    assert re.search(r"from home\.\n\n!\[screen\.png\]\([^)]+\)\n## Equipment", text), text
    expect(page.locator("#preview img")).to_have_count(2)  # the live preview followed


def test_a_rename_shows_the_new_title_once(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "editor", "pw-editor")
    page.goto(f"{live_server.url}/spaces/hr/remote-work/rename/")
    page.get_by_label("Title").fill("Telework policy")
    page.get_by_role("button", name="Rename").click()
    expect(page).to_have_url(f"{live_server.url}/spaces/hr/telework-policy/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Telework policy")
    expect(page.locator("article")).not_to_contain_text("Remote work")

    page.goto(f"{live_server.url}/spaces/hr/telework-policy/edit/")
    assert page.locator("#id_body").input_value().startswith("# Telework policy\n")
