"""Playwright (sync API) on Debian's Chromium against pytest-django's live server.

Every page a test opens is watched: console errors (CSP violations included),
uncaught exceptions and requests to any other origin fail the test.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

# Playwright's sync API runs an event loop in this thread; the ORM calls the
# tests make between browser steps are still plain synchronous code.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not shutil.which(CHROMIUM):
        pytest.fail(f"Chromium not found at {CHROMIUM}: apt-get install -y chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


class Watched:
    """A browser page plus what went wrong on it."""

    def __init__(self, page: Any, origin: str) -> None:
        self.page, self.origin = page, origin
        self.console_errors: list[str] = []
        self.foreign_requests: list[str] = []
        page.on("console", lambda msg: msg.type == "error" and self.console_errors.append(msg.text))
        page.on("pageerror", lambda exc: self.console_errors.append(str(exc)))
        page.on("request", self._check_origin)

    def _check_origin(self, request: Any) -> None:
        parts = urlsplit(request.url)
        if parts.scheme in ("data", "blob", "about"):
            return
        if f"{parts.scheme}://{parts.netloc}" != self.origin:
            self.foreign_requests.append(request.url)


@pytest.fixture
def settings_for_browser(settings, no_embeddings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    from django.core.cache import cache

    cache.clear()  # rate-limit counters and cached answers from earlier runs
    return settings


@pytest.fixture
def watched(browser, live_server, settings_for_browser) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB")
    context.set_default_timeout(15_000)
    page = context.new_page()
    watch = Watched(page, live_server.url)
    yield watch
    context.close()
    # 404 pages a test opens on purpose log "Failed to load resource"; htmx logs a request the page
    # aborted on purpose (a keystroke superseding the list in flight) as an error pair, which a
    # loaded machine makes likelier; a failed response still logs its status. Anything else is a bug.
    aborted = ("htmx:sendAbort,", "htmx:afterRequest,")
    errors = [e for e in watch.console_errors if "404 (Not Found)" not in e and not e.startswith(aborted)]
    assert not errors, f"console errors: {errors}"
    assert not watch.foreign_requests, f"requests to other origins: {watch.foreign_requests}"


def log_in(page: Any, base_url: str, username: str, password: str) -> None:
    page.goto(f"{base_url}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url(f"{base_url}/")


def log_in_as(page: Any, base_url: str, username: str) -> None:
    """Sign out whoever is signed in and sign in ``username`` (password ``pw-<username>``).

    The last page is left first: a request it sends late (the editor's presence poll on load) would
    otherwise go out without cookies and be refused (a 403 on the console)."""
    page.goto("about:blank")
    page.context.clear_cookies()
    log_in(page, base_url, username, f"pw-{username}")
