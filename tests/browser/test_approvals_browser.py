"""Review before publishing and page templates in a real browser: an author sends a new page for
review, a reviewer approves it from Insights and only then do readers see it; a reviewer asks for
changes and the author reads the comment in the editor; a template starts a new page. No console
or CSP error (the ``watched`` fixture)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in_as
from tests.browser.editor import editor_fill

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def hr(make_user, make_space, make_page) -> Any:  # type: ignore[no-untyped-def]
    from django.contrib.auth.models import Group

    from handbook.approvals.services import space_set_approval

    space = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    reviewers = Group.objects.get_or_create(name="hr-reviewers")[0]
    space_set_approval(space=space, requires_review=True, reviewer_group=reviewers)
    make_user("author", "staff", "hr-editors")
    make_user("ruth", "staff", "hr-editors", "hr-reviewers")
    make_user("reader", "staff")
    make_page(space, "Remote work", "# Remote work\n\nUp to three days a week.\n")
    return space


def test_an_author_sends_a_page_for_review_a_reviewer_approves_and_readers_see_it_after(watched, live_server, hr):
    page, base = watched.page, live_server.url
    log_in_as(page, base, "author")
    page.goto(f"{base}/spaces/hr/_new/")
    page.get_by_label("Title").fill("Parental leave")
    editor_fill(page, "# Parental leave\n\nSixteen weeks, fully paid.\n")
    page.get_by_role("button", name="Send for review").click()
    expect(page.locator(".messages")).to_contain_text("Sent for review")
    expect(page.locator(".approval-state")).to_contain_text("Waiting for review")

    log_in_as(page, base, "reader")
    assert page.goto(f"{base}/spaces/hr/parental-leave/").status == 404

    log_in_as(page, base, "ruth")
    page.goto(f"{base}/insights/")
    waiting = page.locator("#waiting-review")
    expect(waiting).to_contain_text("Waiting for your review")
    waiting.get_by_role("link", name="Parental leave").click()
    expect(page.locator("table.diff")).to_contain_text("Sixteen weeks, fully paid.")
    page.get_by_role("button", name="Approve and publish").click()
    expect(page.locator(".messages")).to_contain_text("Approved and published.")

    log_in_as(page, base, "reader")
    assert page.goto(f"{base}/spaces/hr/parental-leave/").status == 200
    expect(page.locator("main")).to_contain_text("Sixteen weeks, fully paid.")


def test_a_reviewer_asks_for_changes_and_the_author_reads_the_comment(watched, live_server, hr):
    page, base = watched.page, live_server.url
    log_in_as(page, base, "author")
    page.goto(f"{base}/spaces/hr/remote-work/edit/")
    editor_fill(page, "# Remote work\n\nUp to four days a week.\n")
    page.get_by_role("button", name="Send for review").click()
    expect(page.locator(".messages")).to_contain_text("Sent for review")
    expect(page.locator("main")).to_contain_text("three days")  # readers keep the published text

    log_in_as(page, base, "ruth")
    page.goto(f"{base}/spaces/hr/remote-work/approval/")
    page.get_by_label("Comment for the author").fill("Four needs the director's sign-off: link the decision.")
    page.get_by_role("button", name="Ask for changes").click()
    expect(page.locator(".messages")).to_contain_text("Changes requested")

    log_in_as(page, base, "author")
    page.goto(f"{base}/spaces/hr/remote-work/edit/")
    state = page.locator(".approval-state")
    expect(state).to_contain_text("Changes requested")
    expect(state).to_contain_text("Four needs the director's sign-off: link the decision.")


def test_a_template_starts_a_new_page(watched, live_server, make_user, make_space, make_page):
    from handbook.page_templates import page_set_template

    it = make_space("it", viewers=("staff",), editors=("it-editors",))
    make_user("ines", "staff", "it-editors")
    body = "# Incident report\n\n## What happened\n\nDescribe it.\n\n## Follow-up\n\nWho does what.\n"
    page_set_template(page=make_page(it, "Incident report template", body), is_template=True)
    page, base = watched.page, live_server.url
    log_in_as(page, base, "ines")
    page.goto(f"{base}/spaces/it/")
    expect(page.locator(".badge--template")).to_have_text("Template")
    page.goto(f"{base}/spaces/it/_new/")
    page.get_by_label("Start from template").select_option(label="Incident report template")
    page.get_by_role("button", name="Use this template").click()
    expect(page.locator("#id_body")).to_have_value(body)
    page.get_by_label("Title").fill("Outage of 3 March")
    page.get_by_role("button", name="Publish").click()
    expect(page.locator(".messages")).to_contain_text("Page published.")
    expect(page.locator("main")).to_contain_text("Who does what.")
