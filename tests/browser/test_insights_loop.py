"""The Insights loop in a real browser: an editor of one space sees the question that nearly found
an answer in it (and not the other space's), publishes the answer from the editor, and Insights
then marks the question "possibly fixed", linking the page. No console or CSP error on the way."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.browser.editor import editor_type_at_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOFTOP = "# Rooftop terrace\n\nThe rooftop terrace has plants and benches for the lunch break.\n"
PAYROLL = "# Payroll calendar\n\nSalaries are paid on the payslipcanary day of each month.\n"
OURS = "When does the rooftop sauna open?"
THEIRS = "Why was my payslip late this month?"


@pytest.fixture
def site(make_user, make_space, make_page) -> Any:  # type: ignore[no-untyped-def]
    from search.models import AskLog

    a = make_space("facilities", viewers=("staff",), editors=("a-editors",))
    b = make_space("payroll", viewers=("payroll",), editors=("b-editors",))
    rooftop = make_page(a, "Rooftop terrace", ROOFTOP, ref="rooftop")
    payroll = make_page(b, "Payroll calendar", PAYROLL, ref="payroll-calendar")
    # Asked before the fix: the passages found came from A for one question, from B for the other.
    AskLog.objects.create(question=OURS, mode="no_answer", passage_spaces=[a.pk], passage_pages=[rooftop.pk])
    AskLog.objects.create(question=THEIRS, mode="no_answer", passage_spaces=[b.pk], passage_pages=[payroll.pk])
    return SimpleNamespace(editor=make_user("editor", "staff", "a-editors"))


def test_an_editor_publishes_the_answer_and_the_gap_is_possibly_fixed(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "editor", "pw-editor")
    page.goto(f"{live_server.url}/insights/")
    unanswered = page.locator("#unanswered")
    ours = unanswered.locator("tr.gap", has_text=OURS)
    expect(ours).to_be_visible()
    expect(ours).to_contain_text("Facilities")
    expect(ours.get_by_text("possibly fixed")).to_have_count(0)
    expect(page.get_by_text(THEIRS)).to_have_count(0)
    expect(page.locator("main")).not_to_contain_text("Payroll")

    # The editor adds the answer to the page the question came close to.
    page.goto(f"{live_server.url}/spaces/facilities/rooftop-terrace/")
    page.get_by_role("link", name="Edit", exact=True).click()
    editor_type_at_end(page, "\n\n## Sauna\n\nThe rooftop sauna opens every weekday at seven.\n", delay=2)
    page.get_by_role("button", name="Publish", exact=True).click()
    expect(page.locator(".prose")).to_contain_text("opens every weekday at seven")

    page.goto(f"{live_server.url}/insights/")
    ours = page.locator("#unanswered tr.gap", has_text=OURS)
    expect(ours.get_by_text("possibly fixed")).to_be_visible()
    link = ours.get_by_role("link", name="Rooftop terrace")
    expect(link).to_have_attribute("href", "/spaces/facilities/rooftop-terrace/")
    expect(page.get_by_text(THEIRS)).to_have_count(0)
    expect(page.locator("main")).not_to_contain_text("payslipcanary")
    link.click()
    expect(page.locator(".prose")).to_contain_text("The rooftop sauna opens every weekday at seven.")
