"""A unit's evidence before it is compared by meaning: the answer decision's fitted weights over the
features that do not depend on the embedding model (the words it shares with the question, whether it
holds the kind of thing asked), in units of the words' weight, the bundled model's for a model without
a policy; the kind has no weight typed in code."""

from __future__ import annotations

import pytest

from config.numbers import ASK_OPENING_BONUS, ASK_RANK_PRIOR
from search.ask import extractive
from search.ask.passages import Passage
from search.decisions.answer import EVIDENCE, answer_decision, evidence_decision
from search.decisions.policy import Decision
from search.embedding.embedders import LOCAL_MODEL_NAME
from tests.passages import make_passage

pytestmark = pytest.mark.django_db

QUESTION = "How many days of leave do I get?"


def _passage(text: str, number: int = 1) -> Passage:
    return make_passage(text, number, title="Leave")


def _bundled() -> Decision:
    decision = answer_decision(LOCAL_MODEL_NAME)
    assert decision is not None, "the bundled model ships its answer decision"
    return decision


def test_the_kind_held_is_one_for_the_kind_asked_and_minus_one_without_the_number_asked_for() -> None:
    units = {
        c.unit.text: c.kind
        for c in extractive.candidates(
            QUESTION,
            "en",
            [_passage("Every employee gets 25 days of leave a year. Leave is agreed with your manager.")],
            LOCAL_MODEL_NAME,
        )
    }
    # Plain text stands for one section whose units all count as its opening.
    assert units["Every employee gets 25 days of leave a year."] == 1.0 + ASK_OPENING_BONUS
    assert units["Leave is agreed with your manager."] == -1.0 + ASK_OPENING_BONUS


def test_a_units_evidence_is_the_fitted_weights_over_the_model_free_features() -> None:
    decision = _bundled()
    weights = dict(zip(decision.features, decision.weights, strict=True))
    assert set(EVIDENCE) <= set(weights)
    pool = extractive.candidates(
        QUESTION,
        "en",
        [_passage("Every employee gets 25 days of leave a year. Leave is agreed with your manager. Lunch is at noon.")],
        LOCAL_MODEL_NAME,
    )
    for c in pool:
        assert c.evidence == pytest.approx(c.words + weights["kind_held"] / weights["words"] * c.kind)
    assert [c.score for c in pool] == sorted((c.score for c in pool), reverse=True)
    assert pool[0].unit.text == "Every employee gets 25 days of leave a year."


def test_a_model_without_a_policy_weighs_the_evidence_as_the_bundled_model_does() -> None:
    assert evidence_decision(None) == _bundled()
    assert evidence_decision(LOCAL_MODEL_NAME) == _bundled()


def test_equal_evidence_goes_to_the_best_ranked_passage_and_none_is_no_answer() -> None:
    same = "Every employee gets 25 days of leave a year."
    pool = extractive.candidates(QUESTION, "en", [_passage(same, 1), _passage(same.replace("25", "30"), 2)])
    assert pool[0].evidence == pool[1].evidence and [c.passage.number for c in pool] == [1, 2]

    unrelated = extractive.select_quotes(QUESTION, "en", [_passage("Lunch is served in the canteen upstairs.")])
    assert unrelated.score is None and unrelated.quotes  # words only: nothing compared by meaning
    assert unrelated.quotes[0].score <= ASK_RANK_PRIOR and not unrelated.answerable
    related = extractive.select_quotes(QUESTION, "en", [_passage(same)])
    assert related.quotes[0].score > ASK_RANK_PRIOR and related.answerable
