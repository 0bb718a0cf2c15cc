"""In a real browser: typing a question calls no model; pressing Enter asks it.

Search as you type sends the search box's own htmx requests (trigger "q"); their
results and Ask panel come from what is at hand, the panel quoting the handbook.
Submitting the form (Enter) is a search someone asked for: the model writes the
answer, and the query's translation is fetched for next time.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.fake_llm import Reply

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REMOTE_WORK = "# Remote work\n\nStaff may work from home up to three days a week, agreed with their manager.\n"


def _model(payload: dict[str, Any]) -> Reply:
    if payload["messages"][0]["content"].startswith("Translate"):
        return Reply(content=json.dumps({"translation": "combien de jours de télétravail"}))
    return Reply(stream_chunks=["Staff may work from home ", "up to three days a week [1]."])


def test_typing_calls_no_model_and_enter_asks_it(
    watched, live_server, make_user, make_space, make_page, fake_llm, settings
):  # type: ignore[no-untyped-def]  # noqa: E501
    settings.SEARCH_TRANSLATE_QUERIES = True
    fake_llm.respond = _model
    make_page(make_space("hr", viewers=("staff",)), "Remote work", REMOTE_WORK)
    make_user("reader", "staff")
    before = fake_llm.chat_calls  # the page's summary
    page = watched.page
    log_in(page, live_server.url, "reader", "pw-reader")

    page.locator("#q").press_sequentially("how many days can I work from home?", delay=40)
    answer = page.locator("#ask-answer")
    # Quotes, announced as an answer when the decision is sure of them, else as a passage to check.
    expect(answer.locator(".answer-method")).to_contain_text(re.compile("Sentences quoted|Check this passage"))
    expect(answer.locator(".citation").first).to_contain_text("Remote work")
    assert fake_llm.chat_calls == before, "search as you type called the model"

    page.locator("#q").press("Enter")
    expect(answer.locator(".answer-method").first).to_contain_text("Written by a language model")
    expect(answer.locator(".answer-text")).to_contain_text("up to three days a week")
    prompts = [r["messages"][0]["content"] for r in fake_llm.requests[before:]]
    assert sum(p.startswith("Translate") for p in prompts) == 1  # the submitted query's, once
