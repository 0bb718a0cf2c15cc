"""Summary picks in Chromium: an editor ticks summary sentences (htmx, no reload) and the page shows
them, labelled, to everyone; a reader sees no picker. No console or CSP error on the way."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BODY = """# Remote work

Staff may work remotely up to three days per week once their trial period is over.
Agree your remote days with your manager and record them in the team calendar.

## Equipment

The company provides a laptop, a screen and a headset for home use.
Report a theft of company equipment within 24 hours.
"""
PICKED = (
    "Staff may work remotely up to three days per week once their trial period is over.",
    "Agree your remote days with your manager and record them in the team calendar.",
)


@pytest.fixture
def site(make_user, make_space, make_page):  # type: ignore[no-untyped-def]
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    make_page(hr, "Remote work", BODY)
    make_user("reader", "staff")
    editor = make_user("editor", "staff", "hr-editors")
    editor.first_name, editor.last_name = "Alice", "Martin"
    editor.save()


def test_an_editor_ticks_summary_sentences_and_the_page_shows_them(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "editor", "pw-editor")
    page.goto(f"{live_server.url}/spaces/hr/remote-work/")
    panel = page.locator("#page-summary")
    expect(panel.locator(".summary__text")).not_to_contain_text(PICKED[1])
    panel.get_by_text("Choose the summary sentences").click()
    for sentence in PICKED:
        panel.get_by_label(sentence).check()
    panel.get_by_role("button", name="Save the pick").click()

    expect(panel).to_contain_text("Picked by Alice Martin")  # swapped in place by htmx
    expect(panel.locator(".summary__text")).to_have_text(" ".join(PICKED))
    expect(page).to_have_url(re.compile(r"/spaces/hr/remote-work/$"))
    page.reload()
    expect(page.locator("#page-summary .summary__text")).to_have_text(" ".join(PICKED))
    expect(page.locator("#page-summary").get_by_label(PICKED[0])).to_be_checked()
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(re.compile(r"/accounts/login/"))

    log_in(page, live_server.url, "reader", "pw-reader")
    page.goto(f"{live_server.url}/spaces/hr/remote-work/")
    reader_panel = page.locator("#page-summary")
    expect(reader_panel.locator(".summary__text")).to_have_text(" ".join(PICKED))
    expect(reader_panel).to_contain_text("Picked by Alice Martin")
    expect(reader_panel.get_by_text("Choose the summary sentences")).to_have_count(0)
    expect(reader_panel.locator("input[type=checkbox]")).to_have_count(0)
