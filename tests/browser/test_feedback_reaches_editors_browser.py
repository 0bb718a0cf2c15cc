"""A reader's "No" reaches editors, in a real browser: Bob gets no answer, says "No",
names the space that should answer and writes why; that space's editors read it on Insights (in
French too: day first, « » quotes); another space's editor does not. No console or CSP error."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUESTION = "What is the per diem for Marseille?"


@pytest.fixture
def site(make_user, make_space, make_page):  # type: ignore[no-untyped-def]
    from search.models import AskLog

    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    finance = make_space("finance", viewers=("staff",), editors=("finance-editors",))
    expenses = make_page(finance, "Expenses", "# Expenses\n\nReceipts go to accounting.\n")
    for n in range(2):  # answered, and rated "No" twice: a gap, not an answered question
        AskLog.objects.create(
            user=make_user(f"asker{n}", "staff"),
            question="Who refunds taxis?",
            mode="extractive",
            answer="“Receipts go to accounting.” [1]",
            passage_spaces=[finance.pk],
            passage_pages=[expenses.pk],
            helpful=False,
        )
    make_space("board", viewers=("board",), editors=("board",))
    make_page(hr, "Holidays", "# Holidays\n\nTwenty-five days a year.\n")
    make_user("bob", "staff")
    make_user("fin", "staff", "finance-editors")
    make_user("hred", "staff", "hr-editors")


def _log_out(page) -> None:  # type: ignore[no-untyped-def]
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(re.compile(r"/accounts/login/"))


def test_a_no_with_a_named_space_reaches_its_editors(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "bob", "pw-bob")
    page.goto(f"{live_server.url}/ask/")
    page.locator("#ask-q").fill(QUESTION)
    page.get_by_role("button", name="Ask", exact=True).click()
    expect(page.locator(".answer-none")).to_be_visible()
    page.get_by_role("button", name="No", exact=True).click()

    step = page.locator("form.feedback--space")
    expect(step).to_contain_text("your “No” is recorded")
    options = step.locator("select option")
    expect(options).to_have_text(["I don't know", "Finance", "Hr"])  # not Board: Bob cannot read it
    step.get_by_label("Space (optional)").select_option(label="Finance")
    step.get_by_label(re.compile("Comment")).fill("Travel expenses are on the Finance pages.")
    step.get_by_role("button", name="Send").click()
    done = page.locator(".feedback--done")
    expect(done).to_have_text("Thanks for your feedback. The editors of Finance will see it.")

    _log_out(page)
    log_in(page, live_server.url, "hred", "pw-hred")
    page.goto(f"{live_server.url}/insights/")
    expect(page.locator("#rejected")).not_to_contain_text(QUESTION)

    _log_out(page)
    log_in(page, live_server.url, "fin", "pw-fin")
    page.goto(f"{live_server.url}/insights/")
    rejected = page.locator("#rejected article.rejected", has_text=QUESTION)
    expect(rejected).to_contain_text("Travel expenses are on the Finance pages.")
    expect(rejected).to_contain_text("The reader says Finance should answer this.")
    expect(rejected.locator("time")).to_have_text(re.compile(r"^[A-Z][a-z]{2}\.? \d{1,2}, \d{4}$"))
    taxis = page.locator("#top li", has_text="Who refunds taxis?")
    expect(taxis.locator(".badge--warn")).to_have_text("not answered: rated “not helpful” 2 times")
    expect(page.locator("#unanswered tr.gap", has_text="Who refunds taxis?")).to_be_visible()

    with page.expect_navigation():
        page.select_option("#language", "fr")
    rejected = page.locator("#rejected article.rejected", has_text=QUESTION)
    expect(rejected).to_contain_text("Selon le lecteur, l’espace « Finance » devrait y répondre.")
    expect(rejected.locator("time")).to_have_text(re.compile(r"^\d{1,2} [a-zéû]+ \d{4}$"))  # day first
