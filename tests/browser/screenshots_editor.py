"""Screenshots of the page editor (docs/editor-before.png, docs/editor-after.png).

Not a check, so not collected by ``make test`` (its name is not ``test_*``): run it by path, with
``EDITOR_SHOT`` naming the file to write, so the same script takes the "before" shot on an older
checkout and the "after" shot on this one:

    EDITOR_SHOT=docs/editor-after.png bash scripts/test.sh tests/browser/screenshots_editor.py
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in

SHOT = os.environ.get("EDITOR_SHOT", "docs/editor-after.png")
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
