"""Comments in Chromium: a reader comments on a section (htmx, no reload), the page's editor finds it
on Insights and resolves it there; the text stays plain text; French on Insights. No console or
CSP error on the way."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BODY = (
    "# Remote work\n\nStaff may work from home up to three days a week.\n\n## Equipment\n\nA second screen is lent.\n"
)


@pytest.fixture
def site(make_user, make_space, make_page):  # type: ignore[no-untyped-def]
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    make_page(hr, "Remote work", BODY)
    make_user("reader", "staff")
    make_user("editor", "staff", "hr-editors")


def test_a_reader_comments_and_the_editor_resolves_it_from_insights(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "reader", "pw-reader")
    page.goto(f"{live_server.url}/spaces/hr/remote-work/")
    thread = page.locator("#comments")
    expect(thread).to_contain_text("No open comments.")
    page.get_by_label("Add a comment").fill("Is a <b>laptop stand</b> lent too?\nOr only screens?")
    page.get_by_label("On section").select_option(label="Equipment")
    page.get_by_role("button", name="Post comment").click()
    comment = thread.locator("article.comment")
    expect(comment).to_have_count(1)  # swapped in by htmx
    expect(comment).to_contain_text("Is a <b>laptop stand</b> lent too?")  # shown as typed, not as HTML
    expect(comment.locator("b")).to_have_count(0)
    expect(comment.locator(".comment__body br")).to_have_count(1)
    expect(comment.get_by_role("link", name="Equipment")).to_have_attribute("href", "#equipment")
    expect(page.get_by_label("Add a comment")).to_have_value("")
    expect(comment.get_by_role("button", name="Resolve")).to_have_count(0)  # readers do not resolve
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(re.compile(r"/accounts/login/"))

    log_in(page, live_server.url, "editor", "pw-editor")
    page.get_by_role("link", name="Insights").click()
    section = page.locator("#open-comments")
    expect(section.get_by_role("heading", name="Open comments on your pages")).to_be_visible()
    expect(section).to_contain_text("Is a <b>laptop stand</b> lent too?")
    expect(section.get_by_role("link", name="Remote work")).to_be_visible()
    section.get_by_role("button", name="Resolve").click()
    page.wait_for_url(re.compile(r"/insights/#open-comments$"))
    expect(page.locator(".messages")).to_contain_text("Comment resolved.")
    expect(page.locator("#open-comments")).to_contain_text("No open comments.")

    page.goto(f"{live_server.url}/spaces/hr/remote-work/")
    expect(page.locator("#comments summary")).to_have_text("1 resolved comment")
    page.locator("#comments summary").click()
    page.locator("#comments").get_by_role("button", name="Reopen").click()  # htmx again
    expect(page.locator("#comments h2 .badge")).to_have_text("1")

    page.goto(f"{live_server.url}/insights/")
    page.select_option("#language", "fr")
    page.wait_for_load_state()
    expect(page.get_by_role("heading", name="Commentaires ouverts sur vos pages")).to_be_visible()
    expect(page.locator("#open-comments").get_by_role("button", name="Résoudre")).to_be_visible()
