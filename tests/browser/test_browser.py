"""End-to-end: a real browser on the live server, htmx and the streamed Ask answer included."""

from __future__ import annotations

import os
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.browser.editor import editor_type_at_end
from tests.fake_llm import Reply

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REMOTE_WORK = (
    "# Remote work\n\nStaff may work from home up to three days a week, agreed with their manager.\n\n"
    + "\n\n".join(f"## Rule {n}\n\n" + "Filler text about office life. " * 40 for n in range(1, 6))
    + "\n\n## Equipment\n\nA second screen is lent on request by the IT desk.\n"
)


@pytest.fixture
def site(make_user, make_space, make_page) -> Any:  # type: ignore[no-untyped-def]
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    return SimpleNamespace(
        hr=hr,
        remote=make_page(hr, "Remote work", REMOTE_WORK),
        salary=make_page(
            hr, "Salary bands", "# Salary bands\n\nThe confidential salary grid.\n", restricted_to=("payroll",)
        ),
        reader=make_user("reader", "staff"),
        editor=make_user("editor", "staff", "hr-editors"),
        payroll=make_user("payroller", "staff", "payroll"),
    )


def test_login_required_then_search_as_you_type(watched, live_server, site):
    page = watched.page
    page.goto(f"{live_server.url}/spaces/hr/")
    expect(page).to_have_url(re.compile(r"/accounts/login/\?next=/spaces/hr/"))
    log_in(page, live_server.url, "reader", "pw-reader")

    page.locator("#q").press_sequentially("screen", delay=40)
    result = page.locator(".result").first
    expect(result).to_contain_text("Remote work")
    expect(page).to_have_url(re.compile(r"/search/\?q=screen$"))  # hx-push-url
    expect(page.locator("html")).to_have_count(1)  # fragment swapped in, not a page inside a page

    # Back and forward keep working with the pushed URLs.
    result.get_by_role("link", name="Remote work").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Remote work")
    page.go_back()
    expect(page.locator(".result").first).to_contain_text("Remote work")


def test_open_a_result_at_its_passage(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "reader", "pw-reader")
    page.goto(f"{live_server.url}/search/?q=second+screen+lent")
    page.locator(".result__title a").first.click()
    expect(page).to_have_url(re.compile(r"/spaces/hr/remote-work/#equipment$"))
    heading = page.locator("h2#equipment")
    expect(heading).to_be_in_viewport()
    background = heading.evaluate("el => getComputedStyle(el).backgroundColor")
    assert background not in ("rgba(0, 0, 0, 0)", "transparent"), "the :target section is highlighted"


def test_ask_streams_an_answer_and_its_citation_opens_the_page(watched, live_server, site, fake_llm, settings):
    settings.SEARCH_TRANSLATE_QUERIES = False  # the scripted reply is for Ask, not query translation
    fake_llm.queue(Reply(stream_chunks=["Staff may work from home ", "up to three days a week [1]."]))
    page = watched.page
    log_in(page, live_server.url, "reader", "pw-reader")
    page.goto(f"{live_server.url}/search/?q=how+many+days+can+I+work+from+home%3F")
    answer = page.locator("#ask-answer")
    expect(answer.locator(".answer-text")).to_contain_text("up to three days a week")
    expect(answer.locator(".citation")).to_contain_text("revision 1")
    expect(page.locator(".result").first).to_contain_text("Remote work")  # results did not wait for the answer
    answer.get_by_role("button", name="Yes").click()  # htmx was wired into the streamed-in fragment
    expect(answer.locator(".feedback--done")).to_have_text("Thanks for your feedback.")
    answer.locator("a.cite").first.click()
    expect(page).to_have_url(re.compile(r"/spaces/hr/remote-work/#"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Remote work")


def test_ask_falls_back_to_plain_htmx_without_a_streaming_fetch(watched, live_server, site):
    page = watched.page
    page.context.add_init_script("delete window.ReadableStream;")
    log_in(page, live_server.url, "reader", "pw-reader")
    page.goto(f"{live_server.url}/search/?q=how+many+days+can+staff+work+from+home%3F")
    expect(page.locator("#ask-answer .citation").first).to_contain_text("Remote work")


def test_ask_feedback(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "reader", "pw-reader")
    page.goto(f"{live_server.url}/ask/?q=how+many+days+can+staff+work+from+home%3F")
    expect(page.locator("#ask-q")).to_have_value("how many days can staff work from home?")
    expect(page.locator(".citation")).to_have_count(0)  # opening the link asks nothing
    page.get_by_role("button", name="Ask", exact=True).click()
    page.get_by_role("button", name="Yes").click()
    expect(page.locator(".feedback--done")).to_have_text("Thanks for your feedback.")


@pytest.mark.worker
def test_edit_and_publish_then_find_it_in_search(watched, live_server, site, worker):
    page = watched.page
    log_in(page, live_server.url, "editor", "pw-editor")
    page.goto(f"{live_server.url}/spaces/hr/remote-work/")
    page.get_by_role("link", name="Edit", exact=True).click()
    editor_type_at_end(page, "\n\n## Travel\n\nBring the zeppelin badge when abroad.\n")
    expect(page.locator("#preview h2#travel")).to_have_text("Travel")  # live preview
    page.get_by_role("button", name="Publish", exact=True).click()
    expect(page.locator(".prose")).to_contain_text("zeppelin badge")

    def found() -> bool:
        page.goto(f"{live_server.url}/search/?q=zeppelin")
        return page.locator(".result").count() > 0

    from tests.conftest import wait_for

    assert wait_for(found, timeout=120, interval=1.0), "the worker reindexed the page"
    expect(page.locator(".result__title a").first).to_have_attribute("href", re.compile(r"#travel$"))


def test_restricted_page_is_invisible_to_a_non_member(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "reader", "pw-reader")
    expect(page.locator("main")).not_to_contain_text("Salary bands")
    page.goto(f"{live_server.url}/search/?q=confidential+salary+grid")
    expect(page.locator("main")).not_to_contain_text("Salary bands")
    response = page.goto(f"{live_server.url}/spaces/hr/salary-bands/")
    assert response is not None and response.status == 404
    # The member does see it.
    page.context.clear_cookies()
    log_in(page, live_server.url, "payroller", "pw-payroller")
    page.goto(f"{live_server.url}/search/?q=confidential+salary+grid")
    expect(page.locator(".result").first).to_contain_text("Salary bands")


def test_language_switcher_and_keyboard_skip_link(watched, live_server, site):
    page = watched.page
    log_in(page, live_server.url, "reader", "pw-reader")
    page.keyboard.press("Tab")
    expect(page.locator(".skip-link")).to_be_focused()
    page.select_option("#language", "fr")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("#q")).to_have_attribute("placeholder", "Rechercher ou poser une question…")


SCREENSHOTS = os.environ.get("SCREENSHOTS_DIR")


def test_demo_search_answer_and_page_summary(watched, live_server, settings_for_browser, tmp_path):
    """The demo handbook answers with citations and shows summaries.

    With SCREENSHOTS_DIR=docs the screenshots refresh docs/search.png and docs/page.png.
    """
    from django.core.management import call_command

    call_command("seed_demo", verbosity=0)
    page = watched.page
    log_in(page, live_server.url, "alice", "alice-demo")
    page.goto(f"{live_server.url}/search/?q=how+many+days+of+annual+leave+do+I+get%3F")
    expect(page.locator("#ask-answer .citations")).to_be_visible()
    out = Path(SCREENSHOTS) if SCREENSHOTS else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / "search.png"), full_page=False)
    page.goto(f"{live_server.url}/spaces/people/annual-leave/")
    expect(page.locator(".summary__text")).to_be_visible()
    page.screenshot(path=str(out / "page.png"), full_page=False)
