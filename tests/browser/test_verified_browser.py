"""Verified answers in a real browser: an editor verifies an answer from Insights by ticking the
page's sentences; a reader asking a paraphrase sees it first, labelled, with its citation; a
reader who may not read the page does not; after the page changes the answer says so."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUESTION = "How much is the daily allowance abroad?"
PARAPHRASE = "What is the daily allowance when travelling abroad?"
TRAVEL = """# Travel

Book every trip through the travel desk at least two weeks ahead.

## Per diems

The daily allowance abroad is 60 euros per day, paid with the next salary.
"""


@pytest.fixture
def settings_for_browser(settings):  # type: ignore[no-untyped-def]
    # With the embedding model: a paraphrase is matched by meaning, as in production.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from django.core.cache import cache

    cache.clear()
    return settings


@pytest.fixture
def site(make_user, make_space, make_page) -> Any:  # type: ignore[no-untyped-def]
    from search.models import AskLog

    finance = make_space("finance", viewers=("staff",), editors=("finance-editors",))
    travel = make_page(finance, "Travel", TRAVEL, ref="travel", restricted_to=("travellers",))
    AskLog.objects.create(question=QUESTION, mode="no_answer", passage_spaces=[finance.pk], passage_pages=[travel.pk])
    return SimpleNamespace(
        travel=travel,
        editor=make_user("editor", "staff", "finance-editors", "travellers"),
        reader=make_user("reader", "staff", "travellers"),
        outsider=make_user("outsider", "staff"),
    )


def _ask(page: Any, base: str, question: str) -> None:
    page.goto(f"{base}/ask/")
    page.locator("#ask-q").fill(question)
    page.get_by_role("button", name="Ask", exact=True).click()


def test_an_editor_verifies_from_insights_and_readers_get_it(watched, browser, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "editor", "pw-editor")
    page.goto(f"{live_server.url}/insights/")
    page.locator("#unanswered").get_by_role("link", name="Verify an answer").first.click()
    expect(page.get_by_role("heading", name="Verify an answer")).to_be_visible()
    page.get_by_role("link", name="Travel").click()
    page.get_by_label("The daily allowance abroad is 60 euros per day, paid with the next salary.").check()
    page.get_by_role("button", name="Verify this answer").click()
    expect(page.locator(".messages")).to_contain_text("Verified")
    expect(page.locator(".verify__existing")).to_contain_text("The daily allowance abroad is 60 euros")

    context = browser.new_context(locale="en-GB")
    reader = context.new_page()
    log_in(reader, live_server.url, "reader", "pw-reader")
    _ask(reader, live_server.url, PARAPHRASE)
    verified = reader.locator(".verified-answer")
    expect(verified).to_contain_text("Verified by editor")
    expect(verified.locator("blockquote")).to_have_text(
        "The daily allowance abroad is 60 euros per day, paid with the next salary."
    )
    expect(verified.get_by_role("link", name="Travel")).to_have_attribute("href", site.travel.get_absolute_url())
    context.close()

    context = browser.new_context(locale="en-GB")
    outsider = context.new_page()
    log_in(outsider, live_server.url, "outsider", "pw-outsider")
    _ask(outsider, live_server.url, QUESTION)
    expect(outsider.locator(".answer-none, .answer-text").first).to_be_visible()
    expect(outsider.locator(".verified-answer")).to_have_count(0)
    expect(outsider.get_by_text("60 euros")).to_have_count(0)
    context.close()


def test_a_changed_page_marks_the_answer(watched, live_server, site):
    from handbook.services import page_save
    from search.verified.selectors import picker_sections
    from search.verified.services import verify_answer
    from search.verified.wording import unit_hash

    units = [u for section in picker_sections(site.travel) for _h, u in section.units]
    verify_answer(editor=site.editor, question=QUESTION, page=site.travel, unit_hashes=[unit_hash(units[-1].text)])
    page_save(page=site.travel, title="Travel", body=TRAVEL + "\nTaxis are refunded after 22:00.\n", author=site.editor)
    page = watched.page
    log_in(page, live_server.url, "reader", "pw-reader")
    _ask(page, live_server.url, QUESTION)
    expect(page.locator(".verified-answer")).to_contain_text("page changed since it was verified")
