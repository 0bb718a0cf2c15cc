"""Hostile content in a real browser (fast version; ``make prove`` runs every payload).

One payload per vector (script tags, event handlers, javascript:/data:/vbscript:
links, SVG, hx-* attributes, style, meta refresh, base href, forms, Markdown
image exfiltration, entity obfuscation, broken Markdown/HTML, prompt injection),
the contexts taken in turn: page titles and bodies (headings, lists, quotes,
tables) and the query string itself. Each is opened where it is shown: the
page, search results and snippets, Ask, the revision diff (history too in the full run) and the
editor. Model output containing HTML/JS comes from the fake LLM server.
Nothing may run, nothing may fetch from another origin, and what should be
shown as text is shown.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

from tests.fake_llm import Reply
from tests.security.hostile import HostileBrowser, HostileReport, create_pages, run_llm_output, run_payloads
from tests.security.hostile_payloads import CONTEXTS, ForeignSink, generate, llm_output, sample

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

HOSTILE_SPACE_TITLE = "<img src=x onerror=window.__pwned('space-hz')> Hostile space"
REMOTE_WORK = (
    "# Remote work\n\nStaff may work from home up to three days a week, agreed with their manager.\n\n"
    "## Equipment\n\nA second screen is lent on request by the IT desk.\n"
)


@pytest.fixture
def sink() -> Any:
    with ForeignSink() as foreign:
        yield foreign


@pytest.fixture
def hostile_site(make_user, make_space, settings_for_browser) -> Any:  # type: ignore[no-untyped-def]
    settings_for_browser.SEARCH_RATE_LIMIT = "1000000/m"
    settings_for_browser.ASK_RATE_LIMIT = "1000000/m"
    space = make_space("hostile", viewers=("staff",), editors=("editors",))
    space.title = HOSTILE_SPACE_TITLE  # shown in breadcrumbs, result meta and facets
    space.save(update_fields=["title"])
    return SimpleNamespace(space=space, editor=make_user("editor", "staff", "editors"))


def run_all(
    browser: Any,
    origin: str,
    site: Any,
    sink: ForeignSink,
    payloads: list,  # type: ignore[type-arg]
    *,
    history: bool = True,
    every_place_every: int = 1,
) -> Any:
    pages = create_pages(site.space, site.editor, payloads)
    hb = HostileBrowser(browser, origin)
    try:
        hb.log_in("editor", "pw-editor")
        run_payloads(hb, payloads, site.space.slug, pages, history=history, every_place_every=every_place_every)
        # Every title at once: the space's page tree and the home page's recent pages.
        hb.open(f"/spaces/{site.space.slug}/", "space")
        hb.open("/", "home")
    finally:
        hb.close()
    hb.report.foreign_requests.extend(f"sink got {hit}" for hit in sink.hits)
    return hb.report


def llm_check(browser: Any, origin: str, make_page: Any, site: Any, sink: ForeignSink, fake_llm: Any) -> Any:
    text = llm_output(sink.url)
    reply = {"answer": text, "sources": [1], "summary": text, "key_points": [text]}
    # One scripted reply for every call: JSON for answers and summaries, text pieces for streams.
    fake_llm.default = Reply(content=json.dumps(reply), stream_chunks=[text[i : i + 7] for i in range(0, len(text), 7)])
    remote = make_page(site.space, "Remote work", REMOTE_WORK)  # its summary is written by the "model"
    report = HostileReport()
    run_llm_output(
        browser, origin, report, "how many days can staff work from home?", f"/spaces/{site.space.slug}/{remote.slug}/"
    )
    report.foreign_requests.extend(f"sink got {hit}" for hit in sink.hits)
    return report


def test_detectors_catch_a_planted_payload(browser, live_server, hostile_site, sink):
    """Positive control: the same detectors do see a script that runs and a foreign fetch."""
    hb = HostileBrowser(browser, live_server.url)
    try:
        hb.log_in("editor", "pw-editor")
        hb.open("/", "home")
        hb.page.evaluate(
            """sink => document.querySelector('main').insertAdjacentHTML('beforeend',
                `<img src=x onerror="window.__pwned('control')"><img src="${sink}/control">`)""",
            sink.url,
        )
        for _ in range(200):  # until the handler ran and the sink was asked (at most 5 s)
            if hb.report.executed and sink.hits:
                break
            hb.page.wait_for_timeout(25)
        findings = hb.check("control")
    finally:
        hb.close()
    assert any(e.startswith("control") for e in hb.report.executed), hb.report.executed
    assert any("/control" in r for r in hb.report.foreign_requests), hb.report.foreign_requests
    assert any("handler onerror" in f for f in findings) and any("foreign src" in f for f in findings), findings
    assert sink.hits == ["GET /control"]


#: Places every payload's first showing leads to (``run_payloads``), all reached in the fast run.
PLACES = {"page", "search", "ask", "revision", "edit", "query-search", "query-ask", "query-htmx", "space", "home"}


def test_hostile_payloads_render_inert(browser, live_server, hostile_site, sink):
    """Every vector (its context taken in turn) where it is first shown: its page, or the search
    page for a query; every third one in every place (search, Ask, revision, editor, the header
    box). ``make prove`` (tests/security/test_prove_hostile.py) opens every place for every
    vector in every context."""
    payloads = sample(generate(sink.url))
    assert len(payloads) >= 40 and {p.context for p in payloads} == set(CONTEXTS)
    everywhere = payloads[::3]
    assert {p.context for p in everywhere} == set(CONTEXTS)  # 3 and 7 are coprime: each context
    report = run_all(browser, live_server.url, hostile_site, sink, payloads, history=False, every_place_every=3)
    assert not report.failures(), json.dumps(report.failures(), indent=1)
    assert report.contexts >= PLACES, sorted(report.contexts)
    assert report.visits >= len(payloads) + 4 * len(everywhere)


def test_model_output_with_html_is_shown_as_text(browser, live_server, hostile_site, sink, fake_llm, make_page):
    report = llm_check(browser, live_server.url, make_page, hostile_site, sink, fake_llm)
    assert not report.failures(), json.dumps(report.failures(), indent=1)
    assert {"llm-summary", "llm-search-summary", "llm-ask", "llm-stream", "llm-htmx"} <= report.contexts
    assert any(r.get("stream") for r in fake_llm.requests), "the streaming path was taken"
