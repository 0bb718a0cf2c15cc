"""The Insights page in a real browser: an editor follows the link and sees their space's gaps,
in French too (the language switch); a reader has no link. No console or CSP error on the way."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def site(make_user, make_space, make_page) -> Any:  # type: ignore[no-untyped-def]
    from search.models import AskLog

    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    it = make_space("it", viewers=("staff",), editors=("it-editors",))
    childcare = make_page(hr, "Childcare", "# Childcare\n\nParents may ask HR about childcare.\n")
    laptops = make_page(it, "Laptops", "# Laptops\n\nEveryone gets a laptop on their first day.\n")
    AskLog.objects.create(
        question="Is there a creche nearby?", mode="no_answer", passage_spaces=[hr.pk], passage_pages=[childcare.pk]
    )
    AskLog.objects.create(
        question="Which laptop do I get?", mode="no_answer", passage_spaces=[it.pk], passage_pages=[laptops.pk]
    )
    return SimpleNamespace(editor=make_user("editor", "staff", "hr-editors"), reader=make_user("reader", "staff"))


def test_an_editor_opens_insights_from_the_navigation(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "editor", "pw-editor")
    page.get_by_role("link", name="Insights").click()
    page.wait_for_url(f"{live_server.url}/insights/")
    expect(page.get_by_role("heading", name="Unanswered questions")).to_be_visible()
    expect(page.locator("#unanswered").get_by_text("Is there a creche nearby?")).to_be_visible()
    expect(page.get_by_text("Which laptop do I get?")).to_have_count(0)

    page.select_option("#language", "fr")
    page.wait_for_load_state()
    expect(page.get_by_role("heading", name="Questions sans réponse")).to_be_visible()


def test_a_reader_has_no_insights_link(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "reader", "pw-reader")
    expect(page.get_by_role("link", name="Insights")).to_have_count(0)
