"""The impact preview in a real browser: an editor with a saved draft opens the panel from the
editor, sees the logged question's answer change, and readers still get the published text (the
preview ran against a real, committed database and rolled its publication back). No console or
CSP error (the ``watched`` fixture)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in_as

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REMOTE = "# Remote work\n\nStaff may work from home 2 days a week, agreed with their manager.\n"
DRAFT = "# Remote work\n\nStaff may work from home 3 days a week, agreed with their manager.\n"
DAYS = "How many days a week can I work from home?"


@pytest.fixture
def drafted(make_user, make_space, make_page) -> Any:
    from handbook.services import page_save
    from search.insights.visibility import MIN_ASKERS
    from search.models import AskLog

    space = make_space("people", viewers=("staff",), editors=("editors",))
    page = make_page(space, "Remote work", REMOTE, ref="remote-work")
    editor = make_user("ed", "staff", "editors")
    make_user("reader", "staff")
    for n in range(MIN_ASKERS):
        AskLog.objects.create(
            user=make_user(f"asker{n}", "staff"),
            question=DAYS,
            mode="extractive",
            answer="…",
            citations=[{"ref": page.ref, "anchor": "", "revision": 1, "quote": "…"}],
            passage_pages=[page.pk],
            passage_spaces=[space.pk],
        )
    page_save(page=page, title=page.title, body=DRAFT, author=editor, publish=False)
    return page


def test_an_editor_previews_the_answers_a_draft_changes_and_readers_see_nothing_of_it(watched, live_server, drafted):
    page, base = watched.page, live_server.url
    log_in_as(page, base, "ed")
    page.goto(f"{base}/spaces/people/remote-work/edit/")
    page.get_by_role("link", name="Preview the answers this changes").click()
    panel = page.locator("#impact-panel-2")
    expect(panel).to_contain_text(DAYS, timeout=30_000)
    expect(panel.locator(".impact__row--changes")).to_contain_text("2 days a week")
    expect(panel.locator(".impact__row--changes")).to_contain_text("3 days a week")
    expect(panel).not_to_contain_text("asker0")
    assert page.url.endswith("/spaces/people/remote-work/edit/")  # loaded into the editor, not a new page

    log_in_as(page, base, "reader")
    page.goto(f"{base}/spaces/people/remote-work/")
    expect(page.locator("main")).to_contain_text("2 days a week")
    expect(page.locator("main")).not_to_contain_text("3 days a week")
