"""The query decision over literal features, and where a policy comes from (search/decisions/)."""

from __future__ import annotations

import json
import logging
import math

import pytest

from search.decisions import policy as policies
from search.decisions.policy import Decision, policy_for
from search.decisions.query import (
    FEATURES,
    NO_FLOOR,
    PAGE_FEATURES,
    PageFeatures,
    QueryFeatures,
    decide_query,
    page_close,
    query_decision,
    stand_out,
    vector_floors,
)
from search.embedding.embedders import LOCAL_MODEL_NAME

# A decision whose logit is 10 × (nearest − everyday) − 2 + 3·words − 1.5·unheld: easy to reason about.
DECISION = Decision(
    ("nearest", "workplace", "everyday", "words", "unheld"),
    (10.0, 0.0, -10.0, 3.0, -1.5),
    -2.0,
    {"result": 0.5, "clearly_off": 0.05, "vector_floor": 0.3, "centred_floor": 0.1},
)


def features(nearest: float, everyday: float = 0.0, words: bool = True, unheld: bool = False) -> QueryFeatures:
    return QueryFeatures(nearest=nearest, workplace=0.0, everyday=everyday, words=words, unheld=unheld)


def test_probability_is_the_logistic_of_the_weighted_features() -> None:
    # logit = 10·0.5 − 10·0.2 − 2 + 3 = 4
    assert DECISION.probability(features(0.5, 0.2).values()) == pytest.approx(1 / (1 + math.exp(-4)))


def test_confident_on_one_side_of_the_threshold_only() -> None:
    # logit 0 at nearest − everyday = −0.1 (with words): p = 0.5 = the threshold
    above = decide_query(features(0.31, 0.4), DECISION)
    below = decide_query(features(0.29, 0.4), DECISION)
    assert above.confident and above.probability is not None and above.probability > 0.5
    assert not below.confident and below.probability is not None and below.probability < 0.5
    assert not above.clearly_off and not below.clearly_off


def test_clearly_off_beneath_its_own_threshold() -> None:
    far = decide_query(features(0.1, 0.8, words=False), DECISION)  # logit −9
    assert not far.confident and far.clearly_off


def test_a_query_not_made_of_words_needs_more_meaning() -> None:
    assert decide_query(features(0.35, 0.4, words=True), DECISION).confident
    assert not decide_query(features(0.35, 0.4, words=False), DECISION).confident


def test_unheld_words_are_read_only_when_they_could_change_the_decision() -> None:
    asked: list[str] = []

    def unheld() -> bool:
        asked.append("asked")
        return True

    clear = decide_query(features(0.9, 0.1), DECISION, unheld=unheld)  # logit 9: −1.5 changes nothing
    assert clear.confident and asked == []
    near = decide_query(features(0.32, 0.4), DECISION, unheld=unheld)  # logit 0.2: −1.5 makes it −1.3
    assert asked == ["asked"] and not near.confident and near.features is not None and near.features.unheld


def test_no_policy_decides_nothing_on_meaning() -> None:
    decided = decide_query(features(0.99, 0.0), None)
    assert not decided.confident and not decided.clearly_off and decided.probability is None
    assert vector_floors(None) == (NO_FLOOR, NO_FLOOR)
    assert not page_close(PageFeatures(0.99, 0.0, 1.0), None)


def test_a_page_matches_closely_on_one_side_of_its_threshold_only() -> None:
    # logit = 20 × similarity − 40 × behind + 2 × coverage − 10
    page = Decision(PAGE_FEATURES, (20.0, -40.0, 2.0), -10.0, {"close": 0.5})
    assert page_close(PageFeatures(similarity=0.55, behind=0.0, coverage=0.0), page)  # logit 1
    assert not page_close(PageFeatures(similarity=0.55, behind=0.05, coverage=0.0), page)  # logit −1
    assert page_close(PageFeatures(similarity=0.55, behind=0.05, coverage=1.0), page)  # logit 1: its words


def test_stand_out_is_the_nearest_less_the_fifth_or_the_floor_beneath_a_short_list() -> None:
    assert stand_out([0.9, 0.85, 0.84, 0.83, 0.8, 0.7], floor=0.5) == pytest.approx(0.1)
    assert stand_out([0.9, 0.85], floor=0.5) == pytest.approx(0.4)  # the list was cut at the floor
    assert stand_out([], floor=0.5) == 0.0


def test_floors_are_read_from_the_decision() -> None:
    assert vector_floors(DECISION) == (0.3, 0.1)


def test_a_decision_round_trips_as_json() -> None:
    again = Decision.from_json(json.loads(json.dumps(DECISION.as_json())))
    assert again.features == DECISION.features and again.thresholds == DECISION.thresholds
    values = features(0.4, 0.3).values()
    assert again.probability(values) == pytest.approx(DECISION.probability(values))
    with pytest.raises(ValueError, match="features but"):
        Decision.from_json({**DECISION.as_json(), "weights": [1.0]})


def test_the_bundled_model_decides_from_its_shipped_policy() -> None:
    policies.forget()
    policy = policy_for(LOCAL_MODEL_NAME)
    assert policy is not None and policy.source == "shipped"
    decision = query_decision(LOCAL_MODEL_NAME)
    assert decision is not None and decision.features == FEATURES
    assert decision.threshold("clearly_off") <= decision.threshold("result")


@pytest.mark.django_db
def test_a_stored_policy_wins_over_the_shipped_one_and_an_unknown_model_has_none(caplog, settings) -> None:
    from django.core.cache import cache

    from search.models import DecisionPolicy

    policies.forget()
    DecisionPolicy.objects.create(model=LOCAL_MODEL_NAME, decisions={"query": DECISION.as_json()}, report={"x": 1})
    policy = policy_for(LOCAL_MODEL_NAME)
    assert policy is not None and policy.source == "calibrated"
    assert query_decision(LOCAL_MODEL_NAME) == DECISION
    cache.delete("decisions:calibrating:some-other-model")
    with caplog.at_level(logging.WARNING, logger="search.decisions.policy"):
        assert policy_for("some-other-model") is None
    assert "no decision policy for embedding model 'some-other-model'" in caplog.text
    assert cache.get("decisions:calibrating:some-other-model") == 1  # its calibration is queued, once
    policies.forget()


def test_the_shipped_same_question_decision_has_a_second_look_below_its_similarity():
    """The bundled model's policy as shipped: the related cosine (fitted by the rules its report
    states) lies below the same-question one, so the second look reaches farther wordings only, and
    the report says what each look matched of the calibration pairs."""
    from search.calibration.same_question_fit import MAX_OTHER_PAGE_MATCHES, MAX_OTHER_QUESTION_MATCHES
    from search.decisions.policy import shipped_path
    from search.decisions.same_question import RELATED, SAME_QUESTION, SIMILARITY
    from search.embedding.embedders import LOCAL_MODEL_NAME

    body = json.loads(shipped_path(LOCAL_MODEL_NAME).read_text())
    same = body["decisions"][SAME_QUESTION]
    assert 0 < same["thresholds"][RELATED] < same["thresholds"][SIMILARITY] < 1
    look = same["report"]["second_look"]
    assert look["paraphrases_matched"] > look["paraphrases_matched_similarity_alone"]
    assert look["same_page_matched"] <= MAX_OTHER_QUESTION_MATCHES
    assert look["other_page_matched"] <= MAX_OTHER_PAGE_MATCHES
