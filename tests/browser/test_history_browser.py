"""History in a real browser: drafts labelled, two revisions compared side by side,
Restore explained before it publishes, dates in the reader's language. No console or CSP error."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def travel(make_user, make_space, make_page) -> Any:  # type: ignore[no-untyped-def]
    from handbook.services import page_save

    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    editor = make_user("editor", "staff", "hr-editors")
    page = make_page(hr, "Travel", "# Travel\n\nHotels up to 120 euros a night.\n")
    page_save(page=page, title="Travel", body="# Travel\n\nHotels up to 150 euros a night.\n", author=editor)
    page_save(page=page, title="Travel", body="# Travel\n\nHotels up to 150 euros.\n\nTaxis too.\n", author=editor)
    page_save(page=page, title="Travel", body="# Travel\n\nDraft <script>x</script>\n", author=editor, publish=False)
    return page


def test_an_editor_compares_two_revisions_and_restores_one_after_reading_what_it_does(watched, live_server, travel):
    page = watched.page
    log_in(page, live_server.url, "editor", "pw-editor")
    page.goto(f"{live_server.url}/spaces/hr/travel/history/")
    rows = page.locator("tr.history__row")
    expect(rows).to_have_count(4)
    expect(rows.nth(0).locator(".badge")).to_have_text("draft")
    expect(rows.nth(1).locator(".badge")).to_have_text("published")
    expect(rows.nth(0)).to_contain_text(re.compile(r"[A-Z][a-z]{2}\.? \d{1,2}, \d{4}"))  # "Dec. 4, 2026", not 12/04

    # Any two revisions: r1 against r3, picked in the two columns.
    page.get_by_label("Compare from revision 1").check()
    page.get_by_label("Compare to revision 3").check()
    page.get_by_role("button", name="Compare the selected revisions").click()
    expect(page.get_by_role("heading", name="Compared with revision 1")).to_be_visible()
    table = page.locator("table.diff")
    expect(table.locator("thead")).to_contain_text("Revision 1")
    expect(table.locator("thead")).to_contain_text("Revision 3")
    expect(table.locator("del")).to_contain_text(["120"])
    expect(table.locator("ins").first).to_have_text("150")
    expect(page.get_by_text("@@")).to_have_count(0)

    # Restore asks first, and says it publishes.
    page.goto(f"{live_server.url}/spaces/hr/travel/history/")
    rows.nth(3).get_by_role("link", name="Restore…").click()
    expect(page.locator(".restore-explanation")).to_contain_text("publishes it at once")
    expect(page.locator(".restore-explanation")).to_contain_text("The unpublished draft (revision 4)")
    page.get_by_role("button", name="Restore and publish revision 1").click()
    expect(page.locator(".messages")).to_contain_text("Revision 1 restored and published as revision 5.")
    expect(page.locator("tr.history__row").first.locator(".badge")).to_have_text("published")


def test_the_history_speaks_french_with_the_day_first(watched, live_server, travel):
    page = watched.page
    log_in(page, live_server.url, "editor", "pw-editor")
    page.goto(f"{live_server.url}/spaces/hr/travel/history/")
    with page.expect_navigation():
        page.select_option("#language", "fr")
    expect(page.get_by_role("heading", level=1)).to_have_text("Historique de « Travel »")
    date = page.locator("tr.history__row").first.locator("time")
    # Django's French long format: "4 décembre 2026 06:34", the day first and the month in words.
    expect(date).to_have_text(re.compile(r"^\d{1,2} [a-zéû]+ \d{4} \d{2}:\d{2}$"))
    expect(page.locator("tr.history__row").first.locator(".badge")).to_have_text("brouillon")
