"""Before a model's policy exists, search is at least keyword search: every keyword hit is a result.

The stand-in second model (``tests/second_model.py``) has no policy until ``calibrate`` runs. Nothing
is confident on meaning then; the words carry the match, as plain keyword search would: a page
holding some of the question's words is found even when no one chunk holds most of them, and a
keyboard mash (no keyword hit) finds nothing, whatever the nearest vectors are.
"""

from __future__ import annotations

import pytest

from search.models import Chunk
from search.retrieval.pipeline import retrieve
from search.selectors import search_pages

pytestmark = pytest.mark.django_db

# Two sections, two chunks: "visa" in one, "housing allowance" in the other.
RELOCATION = (
    "# Relocation\n\n"
    "## Papers\n\nThe company sponsors the work visa of anyone who moves country to join a team.\n\n"
    "## Settling in\n\nA housing allowance covers the rent of the first three months in the new city."
)
OTHER = "# Payroll\n\nSalaries are paid on the 28th of each month. Payslips are in the HR portal."
# Its words are spread over the relocation page, and two of them ("kangaroo", "wranglers") are on no page.
QUESTION = "visa sponsorship and housing allowance for kangaroo wranglers"
HIDDEN = "# Kangaroo wranglers\n\nKangaroo wranglers get a visa and a housing allowance of their own."


@pytest.fixture
def handbook(second_model, make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    space = make_space("people", viewers=("staff",))
    relocation = make_page(space, "Relocation", RELOCATION, ref="relocation")
    make_page(space, "Payroll", OTHER, ref="payroll")
    hidden = make_page(space, "Wranglers", HIDDEN, ref="wranglers", restricted_to=("finance",))
    return {
        "bob": make_user("bob", "staff"),
        "fay": make_user("fay", "staff", "finance"),
        "relocation": relocation,
        "hidden": hidden,
    }


def _content_words_in_one_chunk(page_id: int, words: list[str]) -> bool:
    texts = [f"{c.heading} {c.text}".lower() for c in Chunk.objects.filter(page_id=page_id)]
    return any(all(word in text for word in words) for text in texts)


def test_a_question_whose_words_are_spread_over_a_page_finds_it(handbook) -> None:  # type: ignore[no-untyped-def]
    relocation = handbook["relocation"]
    assert Chunk.objects.filter(page_id=relocation.pk).count() >= 2
    assert not _content_words_in_one_chunk(relocation.pk, ["visa", "housing"])  # spread, as the test needs
    found = retrieve(QUESTION, handbook["bob"])
    assert found.decision is not None and found.decision.probability is None  # no policy: no fitted decision
    assert [p.page_id for p in found.pages] == [relocation.pk]
    shown = search_pages(user=handbook["bob"], query=QUESTION)
    assert [r.ref for r in shown.results] == ["relocation"] and shown.total == 1


def test_a_keyboard_mash_finds_nothing(handbook) -> None:  # type: ignore[no-untyped-def]
    for mash in ("xqzvbnm wpqlkj", "qsdfghjklm"):
        found = retrieve(mash, handbook["bob"])
        assert found.decision is not None and found.decision.features is not None  # nearest vectors were read
        assert found.pages == []
        assert search_pages(user=handbook["bob"], query=mash).total == 0


def test_a_restricted_page_holding_the_words_is_not_returned_to_who_cannot_read_it(handbook) -> None:  # type: ignore[no-untyped-def]
    hidden = handbook["hidden"]
    for_fay = [p.page_id for p in retrieve(QUESTION, handbook["fay"]).pages]
    assert hidden.pk in for_fay  # its words match: a reader of it finds it
    for_bob = retrieve(QUESTION, handbook["bob"])
    assert hidden.pk not in [p.page_id for p in for_bob.pages]
    assert "wranglers" not in [r.ref for r in search_pages(user=handbook["bob"], query=QUESTION).results]
