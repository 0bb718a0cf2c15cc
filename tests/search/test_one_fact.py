"""One fact, well quoted: a sure answer adds a quote only when it states something the quotes before it
do not; every page is a source once, listing every sentence quoted from it; and Ask never leads with a
unit the answer decision scores below one the search snippet under the best result shows.

The decision is the stored policy of the bundled model; comparing by meaning is replaced by similarities
that give each unit the probability the test names (the rest of the logit is the unit's own features)."""

from __future__ import annotations

import html
import math
import re
from types import SimpleNamespace

import pytest

from search.ask import extractive, quoted
from search.ask.passages import Passage
from search.decisions.answer import ANSWER, SURE, answer_decision
from search.decisions.policy import Decision
from search.embedding.embedders import LOCAL_MODEL_NAME
from search.retrieval.query import parse_query
from search.retrieval.snippet import highlight, snippet_window
from tests.passages import make_passage

pytestmark = pytest.mark.django_db

QUESTION = "How many people does the large room seat?"


def _passage(text: str, number: int = 1, page_id: int = 1, ref: str = "rooms") -> Passage:
    return make_passage(text, number, page_id=page_id, ref=ref, title="Meeting rooms", url=f"/{ref}/", revision_id=1)


def _decision() -> Decision:
    decision = answer_decision(LOCAL_MODEL_NAME)
    assert decision is not None and SURE in decision.thresholds
    return decision


def _similarity(decision: Decision, c: extractive.Candidate, probability: float) -> float:
    """The similarity that gives candidate ``c`` the fitted ``probability`` under ``decision``."""
    values = c.features().values() | {"similarity": 0.0, "other_language_similarity": 0.0}
    weight = dict(zip(decision.features, decision.weights, strict=True))["similarity"]
    return (math.log(probability / (1 - probability)) - decision.logit(values)) / weight


def _select(monkeypatch, passages: list[Passage], probabilities: dict[str, float], reorder=None):  # type: ignore[no-untyped-def]
    decision = _decision()
    low = decision.threshold(ANSWER) / 10

    def by_meaning(_vector, pool, _shortlist, _embedder):  # type: ignore[no-untyped-def]
        for c in pool:
            wanted = next((p for start, p in probabilities.items() if c.unit.text.startswith(start)), low)
            c.similarity = _similarity(decision, c, wanted)
        return list(pool)

    monkeypatch.setattr(extractive, "score_by_meaning", by_meaning)
    embedder = SimpleNamespace(model_name=LOCAL_MODEL_NAME)
    return extractive.select_quotes(QUESTION, "en", passages, [1.0], embedder, reorder=reorder)  # type: ignore[arg-type]


def test_a_sure_quote_that_restates_the_lead_is_left_out(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    text = (
        "The large room seats twelve people around one table.\n\n"
        "The large room seats twelve people.\n\n"
        "The small room seats four people and has a whiteboard."
    )
    sure = _decision().threshold(SURE)
    top = (1 + sure) / 2
    chosen = _select(
        monkeypatch,
        [_passage(text)],
        {
            "The large room seats twelve people around": top,
            "The large room seats twelve people.": top - 0.01,
            "The small room": top - 0.02,
        },
    )
    assert chosen.sure
    assert [q.sentence for q in chosen.quotes] == [
        "The large room seats twelve people around one table.",
        "The small room seats four people and has a whiteboard.",
    ]  # the restatement, as sure as the others, says nothing the lead does not


def test_a_page_is_a_source_once_with_every_sentence_quoted_from_it(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    first = _passage("The large room seats twelve people around one table.", number=1)
    second = _passage("The small room seats four people and has a whiteboard.", number=2)
    other = _passage("Projectors are lent by the front desk for the day.", number=3, page_id=2, ref="desk")
    quotes = [
        extractive.Quote(first.text, first, 3.0),
        extractive.Quote(second.text, second, 2.0),
        extractive.Quote(other.text, other, 1.0),
    ]
    selection = extractive.Selection(quotes, 0.99, 0.5, 0.99, True)
    monkeypatch.setattr(quoted, "select_quotes", lambda *a, **k: selection)
    monkeypatch.setattr(quoted, "question_vector", lambda *a: (None, None))
    answer = quoted.extractive_answer(QUESTION, "en", [first, second, other])
    assert [(c.number, c.ref) for c in answer.citations] == [(1, "rooms"), (2, "desk")]
    assert first.text in answer.citations[0].quote and second.text in answer.citations[0].quote
    assert answer.text.count("[1]") == 2 and answer.text.count("[2]") == 1


def test_a_unit_the_search_snippet_shows_is_compared_and_leads_when_the_decision_prefers_it(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """GIVEN a passage whose snippet shows a unit with few of the question's words, while units past the
    snippet hold more of them WHEN the decision scores the snippet's unit higher THEN it leads: it was
    compared by meaning though the words alone would not have shortlisted it."""
    filler = " ".join(f"Floor {n} of the building has lifts, stairs and a kitchen." for n in range(5))
    wordy = "\n\n".join(
        f"The large room seat plan {n} lists how many people sit by team."
        for n in ("one", "two", "three", "four", "five")
    )
    text = f"Twelve people fit around its one table.\n\n{filler}\n\n{wordy}"
    window = snippet_window(text, parse_query(QUESTION).positive_words)
    assert window[1] < text.index("The large room seat plan")
    decision = _decision()
    between = (decision.threshold(ANSWER) + decision.threshold(SURE)) / 2
    compared: list[str] = []

    def by_meaning(_vector, _pool, shortlist, _embedder):  # type: ignore[no-untyped-def]
        for c in shortlist:  # as the product does when no unit vector is stored: the shortlist alone
            compared.append(c.unit.text)
            c.similarity = _similarity(decision, c, between if c.unit.text.startswith("Twelve") else between / 3)
        return list(shortlist)

    monkeypatch.setattr(extractive, "score_by_meaning", by_meaning)
    embedder = SimpleNamespace(model_name=LOCAL_MODEL_NAME)
    chosen = extractive.select_quotes(QUESTION, "en", [_passage(text)], [1.0], embedder)  # type: ignore[arg-type]
    assert "Twelve people fit around its one table." in compared
    assert chosen.quotes[0].sentence == "Twelve people fit around its one table."
    pool = extractive.candidates(QUESTION, "en", [_passage(text)])
    assert pool.index(next(c for c in pool if c.unit.text.startswith("Twelve"))) >= extractive.SHORTLIST


@pytest.mark.parametrize(
    "question",
    ["How many people does the large room seat?", "Who lends the projectors?", "visitors front desk"],
)
def test_the_snippet_window_is_the_one_the_search_page_shows(question: str) -> None:
    far = " ".join(f"Rule {n} of the building concerns the lifts and stairs." for n in range(8))
    text = f"{far} The large room seats twelve people. Projectors are lent by the front desk. Visitors sign in."
    start, end = snippet_window(text, parse_query(question).positive_words)
    shown = re.sub(r"</?mark>", "", html.unescape(str(highlight(text, parse_query(question).positive_words))))
    assert shown.removeprefix("… ").removesuffix(" …") == text[start:end]
