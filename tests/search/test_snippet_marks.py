"""The result snippet marks what the query asked about: content words, never a stop-word, in
English and in French, and a short word marks itself, not every longer word it begins."""

from __future__ import annotations

import re

import pytest

from search.retrieval.snippet import highlight
from search.selectors import search_pages
from tests.search.retrieval_world import add_page


def _marked(snippet: str) -> list[str]:
    return re.findall(r"<mark>(.*?)</mark>", snippet)


def test_english_stop_words_are_never_marked():
    text = "Staff get two laptop bags per person per year; the personal allowance is paid by the team."
    assert _marked(highlight(text, ["laptop", "per", "year", "the", "by"])) == ["laptop", "year"]


def test_french_stop_words_are_never_marked():
    text = "Les congés sont posés par le salarié dans l'outil RH, au moins deux semaines avant, durant l'été."
    assert _marked(highlight(text, ["conges", "par", "le", "outil", "au", "durant"])) == ["congés", "outil"]


def test_a_query_of_stop_words_only_marks_nothing():
    text = "How to book a room: the desk per floor, pour chaque équipe."
    assert _marked(highlight(text, ["how", "to", "per", "pour", "the"])) == []
    # The window is still the passage's start, escaped.
    assert highlight("a < b per c", ["per"]) == "a &lt; b per c"


def test_a_short_word_marks_itself_and_its_plural_only():
    text = "Company van policy: vans are booked by the vanguard team."
    assert _marked(highlight(text, ["van"])) == ["van", "vans"]


@pytest.mark.django_db
def test_search_results_do_not_mark_per(kw, make_page):  # type: ignore[no-untyped-def]
    page = add_page(
        kw,
        make_page,
        "bikes",
        "Bike allowance",
        "# Bike allowance\n\nThe bike allowance is paid per kilometre, per month, to permanent staff.",
    )
    shown = search_pages(user=kw["bob"], query="bike allowance per kilometre")
    result = next(r for r in shown.results if r.page_id == page.pk)
    marked = [m.lower() for m in _marked(result.snippet)]
    assert "per" not in marked and "permanent" not in marked
    assert {"bike", "allowance", "kilometre"} <= set(marked)
