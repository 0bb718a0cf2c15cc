"""Did you mean: corrections come from the words of pages the reader may read, and only those."""

from __future__ import annotations

import pytest

from search import after_search as after
from search.retrieval import suggest
from search.retrieval.hits import Filters
from search.selectors import run_search
from search.services import lexicon_build
from search.statistics.scopes import reader_of
from tests.tiny_lexicon import tiny_lexicon

TRAVEL = (
    "# Travel reimbursement\n\n"
    "Submit your travel reimbursement with every receipt within thirty days of the trip. "
    "Hotel, train and taxi receipts are required for the reimbursement."
)
ONBOARDING = "# Onboarding\n\nYour onboarding week starts with a laptop and a buddy. Onboarding ends on Friday."
FRAIS = "# Remboursement\n\nLe remboursement des frais de mission se fait sous trente jours après la mission."
BUDGET = "# Budget\n\nThe confidential budget is approved in March. The budget lists salary bands."


@pytest.fixture(autouse=True)
def _fresh(monkeypatch, settings):  # type: ignore[no-untyped-def]
    suggest.forget()
    yield from tiny_lexicon(monkeypatch)
    suggest.forget()


@pytest.fixture
def world(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    people = make_space("people", viewers=("staff",))
    board = make_space("board", viewers=("board",))
    make_page(people, "Travel reimbursement", TRAVEL, ref="travel")
    make_page(people, "Onboarding", ONBOARDING, ref="onboarding")
    make_page(people, "Remboursement", FRAIS, language="fr", ref="frais")
    make_page(board, "Budget", BUDGET, ref="budget")
    bob = make_user("bob", "staff")
    carol = make_user("carol", "staff", "board")
    lexicon_build()
    return bob, carol


@pytest.mark.django_db
def test_a_misspelt_word_is_corrected_from_readable_words(world):
    bob, _carol = world
    assert suggest.did_you_mean("onbaording week", reader_of(bob)) == "onboarding week"
    assert suggest.did_you_mean("remboursment des frais", reader_of(bob)) == "remboursement des frais"
    assert suggest.did_you_mean("travle reimbursement", reader_of(bob)) == "travel reimbursement"


@pytest.mark.django_db
def test_two_edits_only_between_long_words(world):
    """A dropped letter shortens the word typed: "recepst" (7 letters, two edits) is the 8 letters of
    "receipts"; two edits between words of 7 letters ("msisoin", "mission") are too many."""
    bob, _carol = world
    assert suggest.did_you_mean("recepst reimbursement", reader_of(bob)) == "receipts reimbursement"
    assert suggest.did_you_mean("msisoin des frais", reader_of(bob)) is None
    assert suggest.did_you_mean("misison des frais", reader_of(bob)) == "mission des frais"


@pytest.mark.django_db
def test_known_words_and_inflections_are_left_alone(world):
    bob, _carol = world
    # "receipts" is in the vocabulary; "reimbursements" is a plural the stemmer matches.
    assert suggest.did_you_mean("receipts reimbursements", reader_of(bob)) is None
    assert suggest.did_you_mean("xq", reader_of(bob)) is None  # too short to correct


@pytest.mark.django_db
def test_a_word_only_hidden_pages_hold_is_never_offered(world):
    """GIVEN "budget" only in a space bob cannot read, WHEN bob and carol misspell it,
    THEN carol is offered the word and bob is not."""
    bob, carol = world
    assert suggest.did_you_mean("budgte", reader_of(carol)) == "budget"
    assert suggest.did_you_mean("budgte", reader_of(bob)) is None
    assert "budget" not in suggest.reader_vocabulary(reader_of(bob)).chunks


@pytest.mark.django_db
def test_the_search_page_offers_the_correction_when_little_matches(client, world):
    bob, _carol = world
    client.force_login(bob)
    html = client.get("/search/", {"q": "onbaording"}).content.decode()
    assert "Did you mean" in html
    assert "/search/?q=onboarding" in html


@pytest.mark.django_db
def test_the_suggestion_reuses_the_searchs_reader(world, monkeypatch):
    """GIVEN a search that found little, WHEN what it leaves behind is worked out, THEN the suggestion
    comes from the reader the search ran as (the scopes are not read a second time), and it is still
    that reader's: carol is offered a word of the board space, bob is not."""
    bob, carol = world

    def read_again(user):  # type: ignore[no-untyped-def]
        raise AssertionError("the scopes were read a second time")

    for user, expected in ((carol, "budget"), (bob, "")):
        outcome = run_search(user, "budgte", Filters(space="board"))  # one page at most: little matched
        assert outcome.reader is not None and outcome.shown.total < after.SUGGEST_BELOW
        with monkeypatch.context() as patched:
            patched.setattr(after, "reader_of", read_again)
            assert after.after_search(outcome, user, typing=True, replayed=False).suggestion == expected
