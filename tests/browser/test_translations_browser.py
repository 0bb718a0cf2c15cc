"""Linked translations in a real browser: an editor links a page to its French translation, a
reader follows "Version française", and when the English page changes the French one is flagged
for its editor, who marks it up to date. No console or CSP error (the ``watched`` fixture)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in_as

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def hr(make_user, make_space, make_page) -> Any:  # type: ignore[no-untyped-def]
    space = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    make_user("editor", "staff", "hr-editors")
    make_user("reader", "staff")
    make_page(space, "Remote work", "# Remote work\n\nUp to three days a week.\n", language="en")
    make_page(space, "Télétravail", "# Télétravail\n\nJusqu'à trois jours par semaine.\n", language="fr")
    return space


def test_a_linked_translation_shows_its_twin_and_is_flagged_when_the_twin_changes(watched, live_server, hr):
    from handbook.models import Page
    from handbook.services import page_save

    page, base = watched.page, live_server.url
    log_in_as(page, base, "editor")
    page.goto(f"{base}/spaces/hr/remote-work/")
    page.get_by_role("link", name="Translations").click()
    page.get_by_label("Translation").select_option(label="Hr › Télétravail (FR)")
    page.get_by_role("button", name="Link").click()
    expect(page.locator(".messages")).to_contain_text("linked as translations")

    log_in_as(page, base, "reader")
    page.goto(f"{base}/spaces/hr/remote-work/")
    page.get_by_role("link", name="Version française").click()
    page.wait_for_url(f"{base}/spaces/hr/teletravail/")
    expect(page.get_by_role("link", name="English version")).to_be_visible()
    expect(page.locator(".translation-outdated")).to_have_count(0)

    english = Page.objects.get(slug="remote-work")
    page_save(page=english, title="Remote work", body="# Remote work\n\nUp to two days a week.\n")
    page.reload()
    expect(page.locator(".translation-outdated")).to_have_count(0)  # readers are not told

    log_in_as(page, base, "editor")
    page.goto(f"{base}/spaces/hr/teletravail/")
    flag = page.locator(".translation-outdated")
    expect(flag).to_contain_text("Translation may be out of date")
    flag.get_by_role("button", name="Mark as up to date").click()
    expect(page.locator(".messages")).to_contain_text("marked as up to date")
    expect(page.locator(".translation-outdated")).to_have_count(0)
