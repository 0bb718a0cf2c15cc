"""Screenshots of the page editor (docs/editor-before.png, docs/editor-after.png), and of New page
with an image pasted before the first save (docs/editor-new-page.png, ``NEW_PAGE_SHOT``).

Not a check, so not collected by ``make test`` (its name is not ``test_*``): run it by path, with
``EDITOR_SHOT`` naming the file to write, so the same script takes the "before" shot on an older
checkout and the "after" shot on this one:

    EDITOR_SHOT=docs/editor-after.png bash scripts/test.sh tests/browser/screenshots_editor.py
"""

from __future__ import annotations

import os
import struct
import zlib
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.browser.editor import hand_file, new_page_typed

SHOT = os.environ.get("EDITOR_SHOT", "docs/editor-after.png")
NEW_PAGE_SHOT = os.environ.get("NEW_PAGE_SHOT", "docs/editor-new-page.png")
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BODY = """# Travel expenses

Train tickets are booked by the **travel desk**; see [the booking tool](https://example.com/book).

## Caps per night

| City | Hotel cap |
| --- | --- |
| Paris | 150 euros |
| Lyon | 110 euros |

- Keep every receipt.
- Claims older than three months are refused.
"""


@pytest.fixture
def handbook(make_user, make_space, make_page, settings, tmp_path) -> Any:  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    make_user("editor", "staff", "hr-editors")
    return make_page(hr, "Travel expenses", BODY, index=False)


def test_shot_of_the_editor(watched, live_server, handbook):
    page = watched.page
    page.set_viewport_size({"width": 1360, "height": 1000})
    log_in(page, live_server.url, "editor", "pw-editor")
    page.goto(f"{live_server.url}/spaces/hr/travel-expenses/edit/")
    expect(page.locator("#preview table")).to_be_visible()
    page.wait_for_timeout(500)
    page.screenshot(path=SHOT, full_page=False)


def _png(width: int, height: int) -> bytes:
    """A floor plan of sorts: blue rooms on a grey ground, enough to see in a screenshot."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(
        b"\x00"
        + b"".join(
            bytes((40, 90, 170)) if (x // 40 + y // 40) % 2 and x % 40 > 8 and y % 40 > 8 else bytes((225, 228, 232))
            for x in range(width)
        )
        for y in range(height)
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def test_shot_of_a_new_page_with_a_pasted_image(watched, live_server, handbook):
    page = watched.page
    page.set_viewport_size({"width": 1360, "height": 1000})
    log_in(page, live_server.url, "editor", "pw-editor")
    text = "# Meeting rooms\n\nRooms are booked in the calendar. The second floor:"
    new_page_typed(page, live_server.url, "hr", "Meeting rooms", text)
    hand_file(page, "paste", "second-floor.png", _png(320, 160))
    expect(page.locator(".js-attachment-status")).to_contain_text("second-floor.png uploaded")
    expect(page.locator("#preview img")).to_be_visible()
    page.wait_for_function("() => document.querySelector('#preview img').naturalWidth > 0")
    page.screenshot(path=NEW_PAGE_SHOT, full_page=False)
