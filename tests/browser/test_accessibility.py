"""axe-core in Chromium on the pages people spend their time in: the editor, a page, search with
its answer, Ask, Insights, History. No serious or critical violation, in English and in French."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.browser.conftest import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BODY = (
    "# Remote work\n\nStaff may work from home two days a week.\n\n"
    "## Equipment\n\n| Item | Who pays |\n| --- | --- |\n| Laptop | IT |\n| Chair | Facilities |\n"
)


@pytest.fixture
def site(make_user, make_space, make_page, settings, tmp_path) -> Any:  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    return SimpleNamespace(
        page=make_page(hr, "Remote work", BODY, index=False),
        editor=make_user("editor", "staff", "hr-editors"),
    )


def serious(page: Any) -> list[str]:
    """The serious and critical violations axe finds on the page as it is now."""
    results = Axe().run(page)
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:3]}"
        for v in results.response["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_no_serious_accessibility_violation_where_people_read_and_write(watched, live_server, site, language):
    page, base = watched.page, live_server.url
    log_in(page, base, "editor", "pw-editor")
    if language == "fr":
        page.context.add_cookies([{"name": "django_language", "value": "fr", "url": base}])
    found: dict[str, list[str]] = {}
    for name, path, ready in [
        ("page", "/spaces/hr/remote-work/", "main h1"),
        ("editor", "/spaces/hr/remote-work/edit/", ".EasyMDEContainer .CodeMirror"),
        ("new page", "/spaces/hr/_new/", "form"),
        ("history", "/spaces/hr/remote-work/history/", "main"),
        ("search", "/search/?q=" + quote("how many days can I work from home?"), "#results"),
        ("ask", "/ask/?q=" + quote("remote work"), "main"),
        ("insights", "/insights/", "main"),
        ("home", "/", "main"),
    ]:
        page.goto(base + path)
        expect(page.locator(ready).first).to_be_visible()
        page.wait_for_load_state("networkidle")
        violations = serious(page)
        if violations:
            found[name] = violations
    assert not found, found
