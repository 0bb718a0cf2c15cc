"""The pager under search results says which results it pages through: with one close match and
many loosely related pages, "Page 1 · Next" read as if the close match had more pages."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from search.selectors import search_pages
from tests.handbook.test_views_search_confidence import LEAVE, OTHERS

pytestmark = pytest.mark.django_db


@pytest.fixture
def reader_client(make_user, make_space, make_page) -> Any:  # type: ignore[no-untyped-def]
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    make_page(hr, "Annual leave", LEAVE)
    for title, text in OTHERS.items():
        make_page(hr, title, f"# {title}\n\n{text}\n")
    client = Client()
    reader = make_user("reader", "staff")
    client.force_login(reader)
    return client, reader


def _pager(html: str) -> str:
    nav = re.search(r'<nav class="pagination"[^>]*>(.*?)</nav>', html, re.S)
    assert nav is not None
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", nav.group(1))).strip()


def test_the_pager_counts_results_and_names_the_loosely_related_pages(reader_client):
    client, reader = reader_client
    result = search_pages(user=reader, query="annual leave days", per_page=10)
    assert 1 <= result.confident < 10 < result.total
    first = _pager(client.get("/search/", {"q": "annual leave days"}).content.decode())
    assert first == f"Results 1–10 of {result.total} More loosely related pages →"
    second = _pager(client.get("/search/", {"q": "annual leave days", "page": "2"}).content.decode())
    assert second.startswith(f"← Previous Results 11–{min(20, result.total)} of {result.total}")
    french = client.get("/search/", {"q": "annual leave days"}, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert _pager(french) == f"Résultats 1 à 10 sur {result.total} Autres pages plus vaguement liées →"
