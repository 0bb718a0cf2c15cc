"""Hostile content, the browser side: ``HostileBrowser`` watches every page it opens.

Payloads and the foreign sink are in ``hostile_payloads.py`` (read its docstring for
the markers and what counts as executed, foreign or injected).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from tests.security.hostile_payloads import LLM_SHOWS, Payload, one_line

# --------------------------------------------------------------------------
# The browser side
# --------------------------------------------------------------------------

_INIT_SCRIPT = """
(() => {
  const report = (kind, value) => { try { window.__pwned(kind + ':' + String(value)); } catch (e) {} };
  for (const name of ['alert', 'confirm', 'prompt', 'print']) {
    try { window[name] = (value) => report(name, value); } catch (e) {}
  }
})();
"""

# Runs in the page after each load: everything that must never be in the DOM.
_SCAN = """
([origin, markerPattern]) => {
  const markers = new RegExp(markerPattern);
  const findings = [];
  const bad = (el, why) => findings.push(`${why}: ${el.outerHTML.slice(0, 160)}`);
  const badScheme = /^(javascript|data|vbscript|file):/i;
  const urlAttrs = ['href', 'src', 'action', 'formaction', 'data', 'poster', 'background', 'xlink:href', 'srcset'];
  const fetching = ['src', 'srcset', 'poster'];
  const hxUrls = ['hx-get', 'hx-post', 'hx-put', 'hx-patch', 'hx-delete', 'hx-push-url'];
  const never = ['iframe', 'frame', 'object', 'embed', 'svg', 'math', 'base', 'applet', 'portal'];
  const sameOrigin = (value) => {
    try { return new URL(value, document.baseURI).origin === origin; } catch (e) { return false; }
  };
  for (const el of document.querySelectorAll('*')) {
    const tag = el.tagName.toLowerCase();
    if (never.includes(tag)) bad(el, 'element');
    if (tag === 'meta' && el.hasAttribute('http-equiv')) bad(el, 'meta');
    const code = el.textContent + ' ' + (el.getAttribute('src') || '');
    if ((tag === 'script' || tag === 'style') && markers.test(code)) bad(el, tag);
    if (tag === 'link' && !sameOrigin(el.getAttribute('href') || '')) bad(el, 'link');
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      const value = attr.value;
      const bare = name.replace(/^data-/, '');
      if (name.startsWith('on') || bare.startsWith('hx-on')) bad(el, 'handler ' + name);
      else if (name === 'srcdoc') bad(el, 'srcdoc');
      else if (name === 'style' && (markers.test(value) || /expression|url\\(/i.test(value))) bad(el, 'style');
      else if (urlAttrs.includes(name) && badScheme.test(value.replace(/[\\s\\x00-\\x1f]/g, ''))) {
        bad(el, 'url ' + name);
      } else if (fetching.includes(name) && value && !sameOrigin(value.split(' ')[0])) bad(el, 'foreign ' + name);
      else if (bare.startsWith('hx-') && (hxUrls.includes(bare) ? !sameOrigin(value) : markers.test(value))) {
        bad(el, 'htmx ' + name);
      }
    }
  }
  const base = document.baseURI;
  if (base && new URL(base).origin !== origin) findings.push('document base: ' + base);
  return findings;
}
"""

_PWNED_TITLE = re.compile(r"^PWNED:")
SETTLE_MS = 25


@dataclass
class Visit:
    url: str
    status: int
    text: str


@dataclass
class HostileReport:
    visits: int = 0
    executed: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    injected: list[str] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    not_shown: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    contexts: set[str] = field(default_factory=set)

    def failures(self) -> dict[str, list[str]]:
        return {
            name: values[:20]
            for name, values in (
                ("executed", self.executed),
                ("foreign_requests", self.foreign_requests),
                ("injected", self.injected),
                ("server_errors", self.server_errors),
                ("not_shown", self.not_shown),
                ("page_errors", self.page_errors),
            )
            if values
        }


class HostileBrowser:
    """One logged-in browser context with every detector attached."""

    def __init__(self, browser: Any, origin: str, *, delete_event_source: bool = False) -> None:
        self.origin = origin
        self.report = HostileReport()
        self.context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB", bypass_csp=True)
        self.context.set_default_timeout(20_000)
        self.context.expose_binding("__pwned", self._pwned)
        self.context.add_init_script(_INIT_SCRIPT)
        if delete_event_source:
            # No streaming (static/js/ask.js streams with fetch + ReadableStream): the htmx POST answers.
            self.context.add_init_script("delete window.EventSource; delete window.ReadableStream;")
        self.page = self.context.new_page()
        self.page.on("request", self._request)
        self.page.on("pageerror", lambda exc: self.report.page_errors.append(f"{self.page.url}: {exc}"))
        self.page.on("dialog", self._dialog)
        self.page.on("response", self._response)
        self._markers = "hz\\d{4}q|llm-[a-z]+|space-hz|PWNED"

    # detectors ----------------------------------------------------------------
    def _pwned(self, source: Any, value: Any = "") -> None:
        frame = source.get("frame") if isinstance(source, dict) else None
        where = frame.url if frame is not None else self.page.url
        self.report.executed.append(f"{value} at {where}")

    def _dialog(self, dialog: Any) -> None:
        self.report.executed.append(f"dialog {dialog.type}: {dialog.message} at {self.page.url}")
        dialog.dismiss()

    def _request(self, request: Any) -> None:
        parts = urlsplit(request.url)
        if parts.scheme in ("data", "blob", "about"):  # no network; the DOM scan flags data: URLs
            return
        if f"{parts.scheme}://{parts.netloc}" != self.origin:
            self.report.foreign_requests.append(request.url)

    def _response(self, response: Any) -> None:
        if response.status >= 500:
            self.report.server_errors.append(f"{response.status} {response.url[:200]}")

    # navigation ---------------------------------------------------------------
    def log_in(self, username: str, password: str) -> None:
        page = self.page
        page.goto(f"{self.origin}/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Log in").click()
        page.wait_for_url(f"{self.origin}/")

    def check(self, context: str) -> list[str]:
        """Run the title and DOM detectors on the page as it is now."""
        page = self.page
        self.report.contexts.add(context)
        self.report.visits += 1
        title = page.title()
        if _PWNED_TITLE.match(title):
            self.report.executed.append(f"title {title!r} at {page.url}")
        findings = [f"{context} {page.url}: {f}" for f in page.evaluate(_SCAN, [self.origin, self._markers])]
        self.report.injected.extend(findings)
        return findings

    def open(self, path: str, context: str, *, wait_for: str | None = None, expect_status: int = 200) -> Visit:
        page = self.page
        response = page.goto(self.origin + path, wait_until="load")
        status = response.status if response is not None else 0
        if status != expect_status:
            self.report.server_errors.append(f"{context}: {status} for {path[:200]}")
        if wait_for:
            page.wait_for_selector(wait_for, state="attached")
        page.wait_for_timeout(SETTLE_MS)
        self.check(context)
        return Visit(page.url, status, _norm(page.inner_text("main")))

    def ask(self, question: str, context: str, *, wait_for: str) -> Visit:
        """The Ask page: GET shows the form filled in, the Ask button asks (a POST)."""
        self.open("/ask/?" + _q(question), context + "-form")
        page = self.page
        with page.expect_navigation(wait_until="load"):
            page.locator(".ask-form button[type=submit]").click()
        page.wait_for_selector(wait_for, state="attached")
        page.wait_for_timeout(SETTLE_MS)
        self.check(context)
        return Visit(page.url, 200, _norm(page.inner_text("main")))

    def expect_shown(self, haystack: str, needle: str, where: str) -> None:
        if _norm(needle) not in _norm(haystack):
            self.report.not_shown.append(f"{where}: {needle[:80]!r}")

    def close(self) -> None:
        self.context.close()


def _norm(text: str) -> str:
    return " ".join(text.split())


ASK_SETTLED = (
    "#ask-answer .answer-method, #ask-answer .answer-none, #ask-answer .notice--error, #ask-answer [role=alert]"
)


def run_payloads(
    hb: HostileBrowser,
    payloads: list[Payload],
    space_slug: str,
    pages: dict[str, Any],
    *,
    history: bool = True,
    every_place_every: int = 1,
) -> None:
    """Open every place each payload is shown; detectors accumulate in ``hb.report``.

    ``history=False`` skips the history table (titles and notes only) to keep the fast run short.
    ``every_place_every=n`` opens every place for one payload in n (the first, then every n-th);
    the others are opened where they are first shown only: their page, or the search page for a
    query. ``make prove`` opens every place for every payload.
    """
    for n, p in enumerate(payloads):
        everywhere = n % every_place_every == 0
        if p.is_query:
            _run_query(hb, p, everywhere=everywhere)
        else:
            _run_page(hb, p, space_slug, pages[p.marker], history=history, everywhere=everywhere)


def _run_page(
    hb: HostileBrowser, p: Payload, space_slug: str, page: Any, *, history: bool, everywhere: bool = True
) -> None:
    base = f"/spaces/{space_slug}/{page.slug}/"
    # The page itself: title in <h1> and <title>, body rendered, table of contents.
    visit = hb.open(base, "page")
    if p.context == "title":
        h1 = _norm(hb.page.inner_text("article h1"))
        if h1 != _norm(p.title):
            hb.report.not_shown.append(f"page h1: {h1[:80]!r} != {p.title[:80]!r}")
    else:
        # Visible text, plus the alt text of the (same-origin) images Markdown may keep.
        shown = hb.page.eval_on_selector(
            "article .prose", "el => el.innerText + ' ' + [...el.querySelectorAll('img')].map(i => i.alt).join(' ')"
        )
        hb.expect_shown(shown, p.shows, f"page {p.marker}")
    if not everywhere:
        return
    # Search results: title link, snippet, summary.
    visit = hb.open("/search/?" + _q(p.marker), "search", wait_for="#results")
    if hb.page.locator(".result").count() == 0:
        hb.report.not_shown.append(f"search {p.marker}: no result")
    elif p.context == "title":
        hb.expect_shown(visit.text, p.title, f"search {p.marker}")
    # Ask (extractive without an LLM): quotes from the page, citation titles.
    hb.ask(p.question, "ask", wait_for=".ask-answer")
    # History, the revision with its diff (body lines, "title changed from"), the editor.
    if history:
        visit = hb.open(base + "history/", "history")
        hb.expect_shown(visit.text, p.title, f"history {p.marker}")
    visit = hb.open(base + "history/2/", "revision")
    hb.expect_shown(hb.page.text_content("main") or "", p.shows, f"revision {p.marker}")
    hb.open(base + "edit/", "edit", wait_for="#preview")
    if _norm(hb.page.input_value("#id_title")) != _norm(p.title):
        hb.report.not_shown.append(f"edit title {p.marker}")
    if hb.page.input_value("#id_body") != p.body:
        hb.report.not_shown.append(f"edit body {p.marker}")


def _run_query(hb: HostileBrowser, p: Payload, *, everywhere: bool = True) -> None:
    # Full search page: the query in the box, the <title>, "no page matches", the Ask panel (streamed).
    hb.open("/search/?" + _q(p.query), "query-search", wait_for="#results")
    if hb.page.locator("#ask-answer").count():
        hb.page.wait_for_selector(ASK_SETTLED, state="attached")
        hb.page.wait_for_timeout(SETTLE_MS)
        hb.check("query-ask-panel")
    if hb.page.input_value("#q") != p.query:
        hb.report.not_shown.append(f"search box {p.marker}")
    if _norm(p.query) not in _norm(hb.page.title()):
        hb.report.not_shown.append(f"search <title> {p.marker}")
    if not everywhere:
        return
    # The Ask page itself.
    hb.ask(p.query, "query-ask", wait_for=".ask-answer")
    if hb.page.input_value("#ask-q") != p.query:
        hb.report.not_shown.append(f"ask box {p.marker}")
    # Typed into the header box: htmx swaps the results fragment in and pushes the URL.
    hb.open("/", "home")
    hb.page.fill("#q", p.query)
    hb.page.wait_for_url(re.compile(r"/search/\?q="))
    hb.page.wait_for_selector("#results", state="attached")
    hb.page.wait_for_timeout(SETTLE_MS)
    hb.check("query-htmx")


def _q(text: str) -> str:
    return "q=" + quote(text, safe="")


def create_pages(space: Any, author: Any, payloads: list[Payload]) -> dict[str, Any]:
    """Revision 1 benign, revision 2 the payload (published): the diff and "title changed" show it."""
    from handbook.services import page_create, page_save

    pages = {}
    for p in payloads:
        if p.is_query:
            continue
        page = page_create(
            space=space, title=f"Draft {p.marker}", body=f"Draft {p.marker}.\n", author=author, publish=False
        )
        result = page_save(page=page, title=p.title, body=p.body, author=author, note=one_line(p.raw)[:300])
        pages[p.marker] = result.page
    return pages


def run_llm_output(browser: Any, origin: str, report: HostileReport, question: str, page_path: str) -> None:
    """Model output with HTML/JS in every place it is shown: the summary on the page and in
    search results, the Ask page (JSON reply), the streamed answer (fetch stream) and the
    plain htmx fallback. It must be shown as text, never run, never fetch."""
    for delete_event_source in (False, True):
        hb = HostileBrowser(browser, origin, delete_event_source=delete_event_source)
        hb.report = report
        try:
            hb.log_in("editor", "pw-editor")
            if not delete_event_source:
                hb.open(page_path, "llm-summary", wait_for=".summary__text")
                hb.expect_shown(hb.page.inner_text(".summary"), LLM_SHOWS, "summary on the page")
                visit = hb.open("/search/?q=remote", "llm-search-summary", wait_for=".result")
                hb.expect_shown(visit.text, LLM_SHOWS, "summary in search results")
                hb.ask(question, "llm-ask", wait_for=".answer-text")
                _expect_llm_answer(hb, "ask page")
            # The search page's Ask panel: streamed, or the htmx POST without a streaming fetch.
            context = "llm-htmx" if delete_event_source else "llm-stream"
            hb.open("/search/?" + _q(question), context, wait_for="#ask-answer .answer-method")
            _expect_llm_answer(hb, context)
        finally:
            hb.close()


def _expect_llm_answer(hb: HostileBrowser, where: str) -> None:
    method = hb.page.inner_text(".answer-method")
    if "language model" not in method:
        hb.report.not_shown.append(f"{where}: not the model's answer ({method!r})")
    hb.expect_shown(hb.page.inner_text(".answer-text"), LLM_SHOWS, where)
