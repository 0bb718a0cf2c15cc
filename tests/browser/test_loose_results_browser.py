"""In Chromium: the loosely related results are folded, and open on request."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.handbook.test_views_search_confidence import LEAVE, OTHERS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def site(watched, settings, make_user, make_space, make_page) -> Any:  # type: ignore[no-untyped-def]
    # After the browser fixtures (which turn embeddings off): confidence is a decision on meaning.
    settings.EMBEDDINGS_ENABLED = True
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    make_page(hr, "Annual leave", LEAVE)
    for title, text in OTHERS.items():
        make_page(hr, title, f"# {title}\n\n{text}\n")
    return make_user("reader", "staff")


def test_loosely_related_results_are_folded_then_shown(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "reader", "pw-reader")
    page.goto(f"{live_server.url}/search/?q=annual+leave+days")
    count = page.locator(".result-count")
    expect(count).to_contain_text(re.compile(r"\d+ pages? match(es)? closely\s+· \d+ more loosely related"))
    closely = int(re.search(r"(\d+) pages? match", count.inner_text()).group(1))

    visible = page.locator(".result:visible")
    expect(visible).to_have_count(closely)
    expect(visible.first).to_contain_text("Annual leave")
    folded = page.locator(".loose-results .result")
    assert folded.count() == 10 - closely
    expect(folded.first).to_be_hidden()

    page.locator(".loose-results > summary").click()
    expect(folded.first).to_be_visible()
    expect(page.locator(".result:visible")).to_have_count(10)

    # The French interface says the same.
    page.context.add_cookies([{"name": "django_language", "value": "fr", "url": live_server.url}])
    page.goto(f"{live_server.url}/search/?q=annual+leave+days")
    expect(page.locator(".result-count")).to_contain_text("plus vaguement liées")
    expect(page.locator(".loose-results > summary")).to_contain_text("autres pages plus vaguement liées")
