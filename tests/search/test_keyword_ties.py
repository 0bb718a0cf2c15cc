"""Term frequency (ts_rank) only breaks ties of the keyword score: chunks holding the same words rank
by how often they use them, and a chunk holding more of the query's weight always ranks first, however
often another repeats a word. Both statements of the keyword list rank alike: one list alone, and
every list of the shares the decision may ask for."""

from __future__ import annotations

import pytest

from search.retrieval.hits import Filters
from search.retrieval.keyword import KEYWORD_MIN_COVERAGE, keyword_lists
from search.retrieval.pipeline import WORDS_ALONE
from search.retrieval.query import parse_query
from tests.readers import visible_page_ids
from tests.search.retrieval_world import add_page, kw_leg, refs

pytestmark = pytest.mark.django_db

PAGES = [
    # Made first, so an order by id alone would put it ahead of the page that repeats the word.
    ("once", "Wildlife notes", "A quokka was seen near the gate on Monday morning."),
    ("often", "More wildlife notes", "Quokka tracks, a quokka nest, quokka food: the quokka stays."),
    ("both", "Field survey", "One quokka and one numbat crossed the path."),
]


@pytest.fixture
def ties(kw, make_page):  # type: ignore[no-untyped-def]
    for ref, title, body in PAGES:
        add_page(kw, make_page, ref, title, f"# {title}\n\n{body}")
    return kw


def _ranked(world, query: str) -> list[str]:  # type: ignore[no-untyped-def]
    return refs(world, [hit.page_id for hit in kw_leg(world, query)])


def _ranked_in_every_list(world, query: str) -> list[list[str]]:  # type: ignore[no-untyped-def]
    coverages = (KEYWORD_MIN_COVERAGE, *WORDS_ALONE)
    lists = keyword_lists(parse_query(query), visible_page_ids(world["bob"]), Filters(), coverages=coverages)
    return [refs(world, [hit.page_id for hit in lists[least]]) for least in coverages]


def test_the_chunk_that_uses_the_words_more_often_breaks_the_tie(ties) -> None:  # type: ignore[no-untyped-def]
    ranked = _ranked(ties, "quokka")
    assert ranked.index("often") < ranked.index("once")
    for listed in _ranked_in_every_list(ties, "quokka"):
        assert listed.index("often") < listed.index("once")


def test_term_frequency_never_passes_a_chunk_holding_more_of_the_query(ties) -> None:  # type: ignore[no-untyped-def]
    ranked = _ranked(ties, "quokka numbat")
    assert ranked[0] == "both"
    assert ranked.index("often") < ranked.index("once")  # the tie below it is still broken
    wide = _ranked_in_every_list(ties, "quokka numbat")[0]
    assert wide[0] == "both" and wide.index("often") < wide.index("once")
