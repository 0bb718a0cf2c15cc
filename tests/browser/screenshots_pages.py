"""Screenshots of pages (docs/screenshots/pages/): history, a revision, a restricted page,
the space tree, Insights and the Ask feedback, in English and French.

Not a check, so not collected by ``make test`` (its name is not ``test_*``): run it by path, with
``ISSUE49_SHOTS`` naming the folder to write to, so the same script takes the "before" shots on an
older checkout and the "after" shots on this one:

    PAGE_SHOTS=docs/screenshots/pages bash scripts/test.sh tests/browser/screenshots_pages.py
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import log_in

SHOTS = os.environ.get("PAGE_SHOTS", "docs/screenshots/pages")
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TRAVEL = "# Travel expenses\n\nTrain tickets are booked by the travel desk.\n\nHotels up to 120 euros a night.\n"


@pytest.fixture
def handbook(make_user, make_space, make_page) -> Any:  # type: ignore[no-untyped-def]
    from handbook.services import page_restore, page_save
    from search.models import AskLog

    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    alice = make_user("alice", "staff", "hr-editors", "payroll")
    bob = make_user("bob", "staff")
    travel = make_page(hr, "Travel expenses", TRAVEL, ref="travel")
    r1 = travel.published_revision
    second = TRAVEL.replace("120 euros", "150 euros") + "\nMeals are refunded on receipts.\n"
    page_save(page=travel, title="Travel expenses", body=second, author=alice, note="New hotel cap")
    page_save(page=travel, title="Travel expenses", body=second + "\nTaxis need a manager's approval.\n", author=alice)
    page_restore(page=travel, revision=r1, author=alice)
    draft = TRAVEL + "\nDraft: per diem rules.\n"
    page_save(page=travel, title="Travel expenses", body=draft, author=alice, publish=False)
    make_page(hr, "Salary bands", "# Salary bands\n\nThe grid of levels.\n", restricted_to=("payroll",))
    make_page(hr, "Holidays", "# Holidays\n\nTwenty-five days a year.\n")
    # Bob's "No" on the per-diem question, with the page that answers it named; a question
    # answered (wrongly) and rated "No" by three people.
    AskLog.objects.create(
        user=bob,
        question="What is the per diem in Lyon?",
        mode="no_answer",
        passage_spaces=[hr.pk],
        passage_pages=[travel.pk],
        helpful=False,
        comment="It is in Travel expenses, under meals.",
    )
    for n in range(3):
        AskLog.objects.create(
            user=make_user(f"asker{n}", "staff"),
            question="Who books my train tickets?",
            mode="extractive",
            answer="“Hotels up to 120 euros a night.” [1]",
            citations=[{"ref": "travel", "anchor": "", "revision": 1, "quote": "Hotels up to 120 euros a night."}],
            passage_spaces=[hr.pk],
            passage_pages=[travel.pk],
            helpful=False,
        )
    return travel


def _shot(page: Any, name: str, selector: str = "") -> None:
    """The whole page as tall as its content, or one element of it (in a viewport tall enough
    that the sticky header does not cover it)."""
    folder = Path(SHOTS)
    folder.mkdir(parents=True, exist_ok=True)
    path = str(folder / f"{name}.png")
    if not selector:
        page.screenshot(path=path, full_page=True)
        return
    page.set_viewport_size({"width": 960, "height": 2400})
    page.locator(selector).first.screenshot(path=path)
    page.set_viewport_size({"width": 960, "height": 400})


def _small(browser: Any, live_server: Any, locale: str = "en-GB") -> Any:
    context = browser.new_context(viewport={"width": 960, "height": 400}, locale=locale)
    context.set_default_timeout(15_000)
    return context


def test_screenshots(browser, live_server, settings_for_browser, handbook):  # type: ignore[no-untyped-def]
    base = live_server.url
    context = _small(browser, live_server)
    page = context.new_page()
    log_in(page, base, "alice", "pw-alice")
    page.goto(f"{base}/spaces/hr/travel-expenses/history/")
    _shot(page, "history")
    page.goto(f"{base}/spaces/hr/travel-expenses/history/3/")
    _shot(page, "revision")
    # Restore's explanation (a GET the older history answered with 405): only where it exists.
    if page.goto(f"{base}/spaces/hr/travel-expenses/history/2/restore/").ok:
        _shot(page, "restore-confirm")
    page.goto(f"{base}/spaces/hr/travel-expenses/")
    _shot(page, "page-summary", "article.page")
    page.goto(f"{base}/spaces/hr/salary-bands/")
    _shot(page, "restricted-page", ".page-header")
    page.goto(f"{base}/spaces/hr/")
    _shot(page, "space-tree", "#pages-title >> xpath=..")
    page.goto(f"{base}/insights/")
    _shot(page, "insights-rejected", "#rejected")
    _shot(page, "insights-top", "#top")
    with page.expect_navigation():
        page.select_option("#language", "fr")
    page.goto(f"{base}/spaces/hr/travel-expenses/history/")
    _shot(page, "history-fr")
    context.close()

    context = _small(browser, live_server)
    page = context.new_page()
    log_in(page, base, "bob", "pw-bob")
    page.goto(f"{base}/ask/")
    page.locator("#ask-q").fill("What is the per diem for Marseille?")
    page.get_by_role("button", name="Ask", exact=True).click()
    page.locator(".feedback").first.wait_for()
    page.get_by_role("button", name="No", exact=True).click()
    page.wait_for_timeout(500)
    _shot(page, "ask-feedback", ".ask-panel")
    step = page.locator("form.feedback--space")
    if step.count():  # the second step of a "No": naming the space that should answer
        step.locator("select").select_option(label="Hr")
        step.locator("textarea").fill("Travel expenses has a section on meals.")
        step.get_by_role("button", name="Send").click()
        page.locator(".feedback--done").wait_for()
        _shot(page, "ask-feedback-sent", ".ask-panel")
    context.close()
