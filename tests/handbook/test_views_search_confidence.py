"""The results page shows the confident results and folds the loosely related ones.

Confidence is retrieval's own (search/retrieval/confidence.py): these tests use the calibrated
floor of the local model, not the tests' default "every neighbour counts".
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client

from search.decisions.policy import Decision
from search.decisions.query import PAGE_FEATURES, QueryFeatures, decide_query
from search.embedding.embedders import LOCAL_MODEL_NAME
from search.retrieval.confidence import confident_count
from search.retrieval.hits import ChunkHit, PageHit, Retrieval
from search.retrieval.query import parse_query
from search.selectors import search_pages

pytestmark = pytest.mark.django_db

LEAVE = "# Annual leave\n\nEvery employee gets twenty five days of annual leave per year.\n"
OTHERS = {
    "VPN access": "Install the VPN client before working from a hotel or a train.",
    "Parking": "The car park opens at seven; badges open the barrier.",
    "Printers": "Printers on each floor print double-sided by default.",
    "Fire drill": "Leave the building by the stairs when the alarm rings twice.",
    "Cafeteria": "Lunch is served from noon; vegetarian dishes every day.",
    "Mail room": "Parcels are kept at the desk for a week.",
    "Bike room": "Bicycles go in the basement room next to the showers.",
    "Meeting rooms": "Book meeting rooms in the calendar, at most two hours.",
    "Plants": "Office plants are watered on Mondays by the facilities team.",
    "Lockers": "Lockers on the second floor are free for the day.",
    "Recycling": "Paper and plastic go in separate bins by the kitchen.",
    "Visitors": "Visitors sign in at reception and wear a badge.",
    "Sick notes": "A doctor's note is needed from the third day off sick.",
    "Parental time off": "Parents may take sixteen weeks after a birth or an adoption.",
    "Public holidays": "The office is closed on the eleven public holidays of the calendar.",
    "Overtime": "Extra hours are paid or recovered within the month.",
    "Training budget": "Each person may spend a training budget on courses and books.",
    "Payroll dates": "Salaries are paid on the last working day of the month.",
    "Performance reviews": "Reviews take place once a year with your manager.",
    "Expense claims": "Claims are paid with the salary when receipts are attached.",
}


@pytest.fixture
def world(make_user, make_space, make_page, settings) -> Any:  # type: ignore[no-untyped-def]
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    make_page(hr, "Annual leave", LEAVE)
    for title, text in OTHERS.items():
        make_page(hr, title, f"# {title}\n\n{text}\n")
    client = Client()
    reader = make_user("reader", "staff")
    client.force_login(reader)
    return SimpleNamespace(hr=hr, reader=reader, client=client, make_page=make_page)


def _titles(html: str) -> list[str]:
    return re.findall(r'<h2 class="result__title"><a [^>]*>([^<]+)</a>', html)


def _count_line(html: str) -> str:
    found = re.search(r'<p class="result-count" role="status">(.*?)</p>', html, re.S)
    assert found
    return " ".join(re.sub(r"<[^>]+>", " ", found.group(1)).split())


def test_the_confident_results_lead_and_the_rest_are_folded_in_the_same_order(world) -> None:  # type: ignore[no-untyped-def]
    result = search_pages(user=world.reader, query="annual leave days", per_page=50)
    assert result.results[0].title == "Annual leave"
    assert 1 <= result.confident < 10 < result.total  # the other pages are near in meaning only

    html = world.client.get("/search/", {"q": "annual leave days"}).content.decode()
    closely = f"{result.confident} pages match closely" if result.confident > 1 else "1 page matches closely"
    assert _count_line(html) == f"{closely} · {result.loosely_related} more loosely related"
    close, loose = html.split('<details class="loose-results">')  # folded: no "open"
    assert _titles(close) == [r.title for r in result.results[: result.confident]]
    assert _titles(loose) == [r.title for r in result.results[result.confident : 10]]  # the ranking's order
    assert f"<summary>{result.loosely_related} more loosely related pages</summary>" in loose

    # The next page holds loosely related results only: shown unfolded, as the reader asked for them.
    html = world.client.get("/search/", {"q": "annual leave days", "page": "2"}).content.decode()
    assert '<details class="loose-results" open>' in html
    assert _titles(html) == [r.title for r in result.results[10:20]]

    # In French.
    html = world.client.get("/search/", {"q": "annual leave days"}, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert _count_line(html).endswith(f"{result.loosely_related} autres plus vaguement liées")
    assert "correspond" in _count_line(html)
    assert f"<summary>{result.loosely_related} autres pages plus vaguement liées</summary>" in html


def test_the_count_does_not_move_with_a_page_the_reader_cannot_read(world) -> None:  # type: ignore[no-untyped-def]
    """GIVEN the reader's results WHEN a page they cannot read, holding every word of the query,
    appears THEN the count line and the two lists are exactly the same."""
    query = {"q": "annual leave days"}

    def seen() -> tuple[str, list[str], str]:
        html = world.client.get("/search/", query).content.decode()
        close, _, loose = html.partition('<details class="loose-results">')
        return _count_line(html), _titles(close), loose and " ".join(_titles(loose))

    before = seen()
    world.make_page(
        world.hr, "Leave for executives", LEAVE.replace("Every employee", "Executives"), restricted_to=("board",)
    )
    assert seen() == before


def test_without_a_query_vector_nothing_is_folded() -> None:
    pages = [PageHit(1, 0.03, [ChunkHit(1, 1, coverage=0.2)]), PageHit(2, 0.02, [ChunkHit(2, 2)])]
    keyword_only = Retrieval(parse_query("leave"), pages, "en")
    assert confident_count(pages, keyword_only) == 2


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        # similarity 0.9 (close), then a page that holds 0.7 of the words (close by its words),
        # then one only near in meaning (0.80): the confident run is two long.
        (
            [
                [ChunkHit(1, 1, vector_distance=0.1)],
                [ChunkHit(2, 2, coverage=0.7)],
                [ChunkHit(3, 3, vector_distance=0.2)],
            ],
            2,
        ),
        # A confident page after a loose one stays in its place: the run ends at the loose one.
        ([[ChunkHit(1, 1, coverage=1.0)], [ChunkHit(2, 2, crosslang_rank=1)], [ChunkHit(3, 3, coverage=1.0)]], 1),
        # No confident first page: nothing to set apart.
        ([[ChunkHit(1, 1, vector_distance=0.3)], [ChunkHit(2, 2, coverage=1.0)]], 2),
    ],
)
def test_the_confident_run(chunks: list[list[ChunkHit]], expected: int) -> None:
    # Literal decisions: the query is confident; a page is close from a chunk 0.85 similar or 60 % of the words.
    decision = Decision(("nearest",), (100.0,), -85.0, {"result": 0.5, "clearly_off": 0.0})
    page = Decision(PAGE_FEATURES, (100.0, 0.0, 100.0 * 0.85 / 0.6), -85.0, {"close": 0.5})
    pages = [PageHit(n, 1.0 / n, hits) for n, hits in enumerate(chunks, start=1)]
    query = decide_query(QueryFeatures(nearest=0.9, workplace=0.0, everyday=0.0, words=True), decision)
    retrieval = Retrieval(
        parse_query("leave"),
        pages,
        "en",
        query_vector=[0.1] * 384,
        embedder=SimpleNamespace(model_name=LOCAL_MODEL_NAME),
        decision=query,
    )
    assert confident_count(pages, retrieval, page) == expected
