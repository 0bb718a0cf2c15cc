"""In a real browser: the search page's Ask panel asks by POST
(streamed with fetch, or the htmx fallback), and an image in a page that points at
/ask/ makes the reader's browser ask nothing."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUESTION = "how many days can staff work from home?"


@pytest.fixture
def site(make_user, make_space, make_page) -> Any:  # type: ignore[no-untyped-def]
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    return SimpleNamespace(
        remote=make_page(hr, "Remote work", "# Remote work\n\nStaff may work from home up to three days a week.\n"),
        trap=make_page(hr, "Lunch", "# Lunch\n\n![menu](/ask/?q=what+is+the+salary+grid%3F) Lunch is free.\n"),
        reader=make_user("reader", "staff"),
    )


def _asks(page: Any) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    page.on("request", lambda r: "/ask/" in r.url and seen.append((r.method, r.url.split("?")[0])))
    return seen


@pytest.mark.parametrize("streaming", [True, False])
def test_search_panel_asks_once_by_post(watched, live_server, site, streaming):
    from search.models import AskLog

    page = watched.page
    if not streaming:
        page.context.add_init_script("delete window.ReadableStream;")
    log_in(page, live_server.url, "reader", "pw-reader")
    asks = _asks(page)
    page.goto(f"{live_server.url}/search/?q=how+many+days+can+staff+work+from+home%3F")
    expect(page.locator("#ask-answer .citation").first).to_contain_text("Remote work")
    path = "/ask/stream/" if streaming else "/ask/"
    assert asks == [("POST", f"{live_server.url}{path}")]
    assert AskLog.objects.filter(user=site.reader).count() == 1


def test_an_image_pointing_at_ask_asks_nothing(watched, live_server, site):
    from search.models import AskLog

    page = watched.page
    log_in(page, live_server.url, "reader", "pw-reader")
    asks = _asks(page)
    page.goto(f"{live_server.url}{site.trap.get_absolute_url()}")
    expect(page.locator(".prose")).to_contain_text("Lunch is free")
    expect(page.locator(".prose img")).to_have_count(0)
    page.wait_for_timeout(300)
    assert asks == []
    assert AskLog.objects.count() == 0
