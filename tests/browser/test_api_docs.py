"""The API's docs page renders from the package's own files under the site's CSP."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_docs_page_lists_the_endpoints(watched, live_server):  # type: ignore[no-untyped-def]
    page = watched.page
    page.goto(f"{live_server.url}/api/v1/docs")
    page.get_by_text("/api/v1/search").first.wait_for()
    assert page.get_by_text("/api/v1/ask").first.is_visible()
