"""Restricted pages in a real browser: editors of the space see to whom, on the page and
in the space's page tree; a reader who may read it sees a plain marker; others see nothing of it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def site(make_user, make_space, make_page):  # type: ignore[no-untyped-def]
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    make_page(hr, "Holidays", "# Holidays\n\nTwenty-five days.\n")
    make_page(hr, "Salary bands", "# Salary bands\n\nThe grid.\n", restricted_to=("payroll", "hr-leads"))
    make_user("editor", "staff", "hr-editors", "payroll")
    make_user("clerk", "staff", "payroll")
    make_user("reader", "staff")


def test_an_editor_sees_whom_a_page_is_restricted_to(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "editor", "pw-editor")
    page.goto(f"{live_server.url}/spaces/hr/")
    salary = page.locator(".tree li", has_text="Salary bands")
    expect(salary.locator(".badge--restricted")).to_have_text("restricted to hr-leads, payroll")
    expect(page.locator(".tree li", has_text="Holidays").locator(".badge--restricted")).to_have_count(0)
    salary.get_by_role("link", name="Salary bands").click()
    expect(page.locator(".page-header .badge--restricted")).to_have_text("restricted")
    expect(page.locator(".restricted-note")).to_contain_text("Restricted to: hr-leads, payroll")


def test_a_reader_of_the_page_sees_only_that_it_is_restricted(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "clerk", "pw-clerk")
    page.goto(f"{live_server.url}/spaces/hr/")
    expect(page.locator(".tree li", has_text="Salary bands").locator(".badge--restricted")).to_have_text("restricted")
    page.goto(f"{live_server.url}/spaces/hr/salary-bands/")
    expect(page.locator(".page-header .badge--restricted")).to_have_text("restricted")
    expect(page.locator(".restricted-note")).to_have_count(0)
    expect(page.locator("main")).not_to_contain_text("hr-leads")


def test_someone_who_cannot_read_it_sees_nothing_of_it(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "reader", "pw-reader")
    page.goto(f"{live_server.url}/spaces/hr/")
    expect(page.locator(".tree")).to_contain_text("Holidays")
    expect(page.locator("main")).not_to_contain_text("Salary")
    expect(page.locator(".badge--restricted")).to_have_count(0)
