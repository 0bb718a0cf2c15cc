"""The full hostile-content proof (``make prove``): every payload, every place it is shown.

tests/browser/test_hostile.py runs one payload per vector in ``make test``;
this runs all of them (every vector in every context) plus the model-output
check, and records the figures in bench/results/prove.json.
"""

from __future__ import annotations

import json

import pytest

from tests.browser.conftest import browser, settings_for_browser  # noqa: F401 - the session's Chromium
from tests.browser.test_hostile import hostile_site, llm_check, run_all, sink  # noqa: F401 - fixtures
from tests.security.hostile_payloads import CONTEXTS, generate
from tests.security.test_prove_full import count, record

# The payloads are shared out among this many parts, each a test of its own, so that the parts can
# run side by side (scripts/prove.sh); together they show every payload once.
PARTS = count("HOSTILE_PARTS", 2)

pytestmark = [
    pytest.mark.prove,
    pytest.mark.browser,
    pytest.mark.timeout(4 * 3600),
    pytest.mark.django_db(transaction=True),
]


@pytest.mark.parametrize("part", range(PARTS))
def test_every_hostile_payload_renders_inert(
    part,
    browser,  # noqa: F811
    live_server,
    hostile_site,  # noqa: F811
    sink,  # noqa: F811
    fake_llm,
    make_page,
    settings,
):
    # Every payload's page is saved, and every query asked, within the test's one rate-limit window
    # (tests/conftest.py), each save asking the model for a summary and each Ask for an answer: the
    # site's LLM limits (per user, per site, for summaries) would stop the model's part past 20 or 60,
    # and the model's own output is then never shown. The limits keep their own tests.
    settings.LLM_SUMMARY_RATE_LIMIT = settings.LLM_GLOBAL_RATE_LIMIT = settings.LLM_USER_RATE_LIMIT = "100000/m"
    payloads = generate(sink.url)
    assert len(payloads) >= 200 and len({p.marker for p in payloads}) == len(payloads)
    # PROVE_HOSTILE_PAYLOADS: an evenly spread share of them, for a quick look at the cost per payload.
    wanted = count("HOSTILE_PAYLOADS", len(payloads))
    payloads = payloads[:: max(1, len(payloads) // max(1, wanted))][:wanted][part::PARTS]
    report = run_all(browser, live_server.url, hostile_site, sink, payloads)
    llm = llm_check(browser, live_server.url, make_page, hostile_site, sink, fake_llm)
    failures = {**report.failures(), **{f"llm_{k}": v for k, v in llm.failures().items()}}
    record(
        f"hostile_content, part {part + 1} of {PARTS}",
        payloads=len(payloads),
        vectors=len({p.vector for p in payloads}),
        contexts=len(CONTEXTS),
        places=sorted(report.contexts | llm.contexts),
        page_views=report.visits + llm.visits,
        executed=len(report.executed) + len(llm.executed),
        foreign_requests=len(report.foreign_requests) + len(llm.foreign_requests),
        injected_markup=len(report.injected) + len(llm.injected),
        server_errors=len(report.server_errors) + len(llm.server_errors),
        not_shown=len(report.not_shown) + len(llm.not_shown),
    )
    assert not failures, json.dumps(failures, indent=1)
