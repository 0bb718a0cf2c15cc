"""Who is editing, in Chromium: two editors in two browser contexts open the same page's editor and
each is told the other has it open (the htmx poll on load); a reader's page says nothing of it.
No console or CSP error in either context."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import Watched, log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def site(make_user, make_space, make_page):  # type: ignore[no-untyped-def]
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    make_page(hr, "Remote work", "# Remote work\n\nThree days a week.\n")
    alice = make_user("alice", "staff", "hr-editors")
    alice.first_name, alice.last_name = "Alice", "Martin"
    alice.save()
    make_user("bruno", "staff", "hr-editors")


def test_two_editors_see_each_other_in_the_editor(watched, browser, live_server, site):
    edit_url = f"{live_server.url}/spaces/hr/remote-work/edit/"
    first = watched.page
    log_in(first, live_server.url, "alice", "pw-alice")
    first.goto(edit_url)
    expect(first.locator("#presence")).to_have_text("")  # alone: nothing said
    with first.expect_response(lambda r: r.url.endswith("/editing-now/")):
        first.reload()  # recorded once the poll has answered

    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB")
    try:
        second_watch = Watched(context.new_page(), live_server.url)
        second = second_watch.page
        log_in(second, live_server.url, "bruno", "pw-bruno")
        with second.expect_response(lambda r: r.url.endswith("/editing-now/")):
            second.goto(edit_url)
        expect(second.locator("#presence")).to_have_text(
            "Alice Martin is also editing this page. Whoever saves second will be shown both versions."
        )
        first.reload()
        expect(first.locator("#presence")).to_contain_text("bruno is also editing this page.")
        assert not second_watch.console_errors and not second_watch.foreign_requests
    finally:
        context.close()
