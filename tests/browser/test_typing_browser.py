"""In a real browser: search as you type shows only the latest keystroke's list (search/as_you_type.py).

Typing fast, each keystroke's light request replaces the one in flight (hx-sync on the form):
the browser aborts the stale ones, and a stale one that reaches the server after a newer
keystroke of the same session answers 204 without the work. Enter right after the last key
sends no light list or pause list for the line it searched.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from playwright.sync_api import expect

from search import as_you_type, views
from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Every list the page renders, in order: the query each fragment answered.
RECORD_LISTS = """
window.renderedLists = [];
new MutationObserver(function () {
  document.querySelectorAll("#typing-list .typing-list__body:not([data-seen])").forEach(function (body) {
    body.setAttribute("data-seen", "1");
    window.renderedLists.push(body.getAttribute("data-typing-query"));
  });
}).observe(document.body, {childList: true, subtree: true});
"""


def hold_page_time(page: Any) -> None:
    """From here on the page's timers (htmx's 150 ms and 1 s pauses) fire only as the test advances its
    clock (``page.clock.run_for``): keys typed "at once" or "220 ms apart" are so in the page's time,
    however busy the machine is. ``page.clock.install()`` comes before the page loads."""
    page.clock.pause_at(time.time() + 2)


@pytest.fixture
def handbook(make_user, make_space, make_page):  # type: ignore[no-untyped-def]
    people = make_space("people", viewers=("staff",))
    make_page(people, "Annual leave", "# Annual leave\n\n## Carrying days over\n\nFive days carry over.\n")
    make_page(people, "Annual review", "# Annual review\n\nOnce a year with your manager.\n")
    make_page(people, "Annual bonus (payroll only)", "# Bonus\n\nSecret.\n", restricted_to=("payroll",))
    make_user("reader", "staff")


def test_fast_typing_renders_only_the_latest_list(watched, live_server, handbook, monkeypatch):  # type: ignore[no-untyped-def]
    """GIVEN each light request but the last is still at the server when the next keystroke's leaves, and the
    first keystroke's starts only after a newer one reached the server (as if queued behind other
    work) WHEN "annual" is typed a key every 220 ms THEN the browser aborts each stale request as
    the next one leaves, the server drops the first one (a newer keystroke of the session was seen
    meanwhile) and the list shows "annual" only.

    The keys come at 220 ms of the page's time (its clock held: ``hold_page_time``), and the server
    waits for the next keystroke rather than for a fixed time (at most 10 s): on a busy machine a
    request can take longer than any fixed delay."""
    checks: list[tuple[int | None, bool]] = []
    lock = threading.Condition()
    newest = [0]  # the newest keystroke the server has recorded
    answering = threading.local()  # the keystroke a server thread answers (one thread a request)
    real_superseded, real_matches = as_you_type.superseded, views.prefix_matches

    def queued_then_checked(*, session_key: str, sequence: int | None) -> bool:
        answering.sequence = sequence
        with lock:
            first = not checks and sequence is not None
            if first:
                checks.append((sequence, False))  # a placeholder: this one is "queued"
                lock.notify_all()
                lock.wait_for(lambda: newest[0] > sequence, timeout=10)
        dropped = real_superseded(session_key=session_key, sequence=sequence)
        with lock:
            if first:
                checks[0] = (sequence, dropped)
            else:
                checks.append((sequence, dropped))
            if sequence is not None and sequence > newest[0]:
                newest[0] = sequence
            lock.notify_all()
        return dropped

    def slow_matches(**kwargs: Any) -> Any:
        if kwargs.get("text") != "annual":  # the last keystroke's is answered at once
            mine = getattr(answering, "sequence", None) or 0
            with lock:
                lock.wait_for(lambda: newest[0] > mine, timeout=10)
        return real_matches(**kwargs)

    monkeypatch.setattr(as_you_type, "superseded", queued_then_checked)
    monkeypatch.setattr(views, "prefix_matches", slow_matches)
    page = watched.page
    aborted: list[str] = []
    page.on("requestfailed", lambda r: "/search/typing/" in r.url and aborted.append(r.url))
    page.clock.install()
    log_in(page, live_server.url, "reader", "pw-reader")
    page.evaluate(RECORD_LISTS)

    hold_page_time(page)
    for typed, key in enumerate("annual", start=1):  # a key every 220 ms: its light request leaves 150 ms after it
        page.locator("#q").press(key)
        page.clock.run_for(220)
        # The page's 220 ms take no time on the machine: the next key waits until this one's request
        # has reached the server (at 220 ms apart, it would have), or two requests would race there.
        with lock:
            assert lock.wait_for(lambda n=typed: len(checks) >= n, timeout=10), checks
    listing = page.locator("#typing-list")
    expect(listing.locator("[data-typing-query]")).to_have_attribute("data-typing-query", "annual")
    # (Read from the list's text: the pause's full list may already have closed it.)
    expect(listing.locator("a.typing-hit", has_text="Annual leave")).to_have_count(1)  # the title
    expect(listing.locator("a.typing-hit", has_text="Annual review")).to_have_count(1)
    expect(listing).not_to_contain_text("bonus")  # restricted to payroll: never named
    assert page.evaluate("window.renderedLists") == ["annual"]
    assert len(aborted) >= 4, aborted  # "a" … "annua": each replaced while in flight
    # htmx reports each abort on the console (an error event); expected here, nothing else is.
    abort_logs = [e for e in watched.console_errors if e.split(",")[0] in ("htmx:sendAbort", "htmx:afterRequest")]
    assert len([e for e in abort_logs if e.startswith("htmx:sendAbort")]) == len(aborted)
    watched.console_errors[:] = [e for e in watched.console_errors if e not in abort_logs]

    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and len(checks) < 6:
        time.sleep(0.05)
    assert checks[0][1] is True, checks  # the queued first keystroke: dropped without the work
    assert [dropped for _seq, dropped in checks[1:]] == [False] * (len(checks) - 1), checks
    # The pause's full list comes a second after the last key and closes the typing list.
    page.clock.run_for(1000)
    page.clock.resume()
    expect(page.locator("#results")).to_contain_text("Annual leave")
    expect(listing).to_be_hidden()


def test_enter_right_after_typing_sends_no_stale_list(watched, live_server, handbook):  # type: ignore[no-untyped-def]
    """GIVEN a line typed WHEN Enter follows the last key at once THEN the submitted search is the
    only request for that line: no light list nor pause list replaces it afterwards."""
    page = watched.page
    sent: list[str] = []
    page.on("request", lambda r: "/search/" in r.url and sent.append(r.headers.get("hx-trigger") or "page"))
    page.clock.install()
    log_in(page, live_server.url, "reader", "pw-reader")
    hold_page_time(page)  # the keys and Enter come at one instant of the page's time
    page.locator("#q").press_sequentially("annual rev", delay=30)
    page.locator("#q").press("Enter")
    page.clock.resume()  # the keystrokes' pending pauses run out now
    expect(page.locator("#results")).to_contain_text("Annual review")
    page.wait_for_timeout(1500)  # past the pause delay
    assert sent == ["search-form"], sent
    expect(page).to_have_url(f"{live_server.url}/search/?q=annual%20rev")


def test_arrow_keys_choose_in_the_list_and_the_pause_waits(watched, live_server, handbook):  # type: ignore[no-untyped-def]
    """GIVEN the list is shown WHEN the person arrows into it THEN the longer pause's full list is
    not sent (it would close the list under their keys), and Enter on an entry opens that page."""
    page = watched.page
    sent: list[str] = []
    page.on("request", lambda r: "/search/" in r.url and sent.append(r.headers.get("hx-trigger") or "page"))
    page.clock.install()
    log_in(page, live_server.url, "reader", "pw-reader")
    hold_page_time(page)
    page.locator("#q").press_sequentially("annual lea", delay=30)
    page.clock.run_for(200)  # the short pause: the light list leaves, the full list's pause (1 s) runs on
    listing = page.locator("#typing-list")
    expect(listing.locator("a.typing-hit").first).to_have_text("Annual leave")
    page.locator("#q").press("ArrowDown")
    expect(listing.locator("a.typing-hit").first).to_be_focused()
    page.clock.run_for(1300)  # past the pause delay
    expect(listing).to_be_visible()
    assert as_you_type.PAUSE_ID not in sent, sent
    page.clock.resume()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", level=1)).to_have_text("Annual leave")
