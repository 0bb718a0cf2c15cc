"""Ask says how sure it is: "sure" from the answer decision's fitted ``sure`` threshold, "unsure" between
it and the ``answer`` threshold; an unsure answer is one quote, shown as a passage to check.

The decision is the stored policy of the bundled model, read as production reads it; where a test moves
a threshold, it stores a policy moved from the probability it observed."""

from __future__ import annotations

import json
import math
from io import StringIO
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.management import call_command
from django.template.loader import render_to_string
from django.test import Client
from django.urls import reverse
from django.utils.translation import override

from search.ask import extractive
from search.ask.answers import answer_question
from search.ask.passages import Passage
from search.ask.replies import Answer, citation
from search.ask.views import _answer_context
from search.calibration.answer_fit import (
    ANSWER_FIT_FALLBACK_THRESHOLD,
    SURE_PRECISION,
    best_threshold,
    equal_error_threshold,
    sure_threshold,
)
from search.decisions.answer import (
    ANSWER,
    SURE,
    UNSURE,
    UnitFeatures,
    answer_decision,
    confidence,
    is_sure,
)
from search.decisions.policy import Decision, forget, policy_for
from search.embedding.embedders import LOCAL_MODEL_NAME
from search.models import DecisionPolicy
from tests.passages import make_passage

pytestmark = pytest.mark.django_db

ROOMS = """# Meeting rooms

Meeting rooms are booked in the calendar app, up to four weeks ahead.

The large room on the third floor seats 12 people and has a video system.
"""
QUESTION = "How many people does the large meeting room seat?"
UNSURE_HEADING = "The handbook may answer this here:"


def _decision() -> Decision:
    decision = answer_decision(LOCAL_MODEL_NAME)
    assert decision is not None and SURE in decision.thresholds, "the shipped policy has a fitted sure threshold"
    return decision


def _features_at(
    decision: Decision, probability: float, *, words: float = 0.5, kind: float = 0.0, kind_match: float = 0.0
) -> UnitFeatures:
    """Literal features whose probability under ``decision`` is ``probability``: the similarity solves the logit."""
    weights = dict(zip(decision.features, decision.weights, strict=True))
    rest = decision.intercept + weights["words"] * words + weights["kind_held"] * kind
    rest += weights.get("kind_match", 0.0) * kind_match
    similarity = (math.log(probability / (1 - probability)) - rest) / weights["similarity"]
    return UnitFeatures(words, kind, similarity, False, kind_match)


def _store(decision: Decision) -> None:
    """The bundled model's policy with ``decision`` as its answer decision, stored as if calibrated."""
    policy = policy_for(LOCAL_MODEL_NAME)
    assert policy is not None
    decisions = {name: d.as_json() for name, d in policy.decisions.items()}
    DecisionPolicy.objects.update_or_create(
        model=LOCAL_MODEL_NAME, defaults={"decisions": {**decisions, ANSWER: decision.as_json()}}
    )
    forget()


def _with_thresholds(decision: Decision, thresholds: dict[str, float]) -> Decision:
    return Decision(decision.features, decision.weights, decision.intercept, thresholds, decision.report)


def test_a_unit_just_above_the_sure_threshold_is_sure_and_just_below_unsure() -> None:
    decision = _decision()
    sure = decision.threshold(SURE)
    assert sure > decision.threshold(ANSWER)  # a sure answer is an answer
    above = decision.probability(_features_at(decision, sure + 0.001).values())
    below = decision.probability(_features_at(decision, sure - 0.001).values())
    assert below < sure < above
    assert confidence(above, decision) == SURE
    assert confidence(below, decision) == UNSURE and below >= decision.threshold(ANSWER)
    assert confidence(above, None) == UNSURE  # no policy: the words decide, and never surely


def test_the_sure_rule_takes_the_lowest_threshold_reaching_the_precision_target() -> None:
    """GIVEN held-out best units (probability, states the answer, answerable) THEN "sure" starts where the
    answers above it reach the precision target; when none does, the most precise with some coverage."""
    right = [(0.5 + i / 100, 1, True) for i in range(40)]
    wrong = [(0.3, 0, False), (0.35, 0, False), (0.4, 0, True), (0.45, 0, False), (0.55, 0, True), (0.6, 0, False)]
    threshold, figures = sure_threshold([*right, *wrong], 0.2)
    above = [s for p, s, _a in [*right, *wrong] if p >= threshold]
    assert sum(above) / len(above) >= SURE_PRECISION and figures["rule"] == "precision_reached"
    lower = max(p for p, _s, _a in [*right, *wrong] if p < threshold)
    below = [s for p, s, _a in [*right, *wrong] if p >= lower]
    assert sum(below) / len(below) < SURE_PRECISION
    coin = [(0.4 + i / 100, int(i % 3 != 0 and i < 35), True) for i in range(40)]  # the most probable are wrong
    threshold, figures = sure_threshold(coin, 0.2)
    assert figures["rule"] == "fallback_highest_precision" and float(figures["answerable_answered_sure"]) > 0


def test_the_answer_rule_takes_the_crossing_of_answered_and_declined_not_a_flat_mean() -> None:
    """GIVEN held-out best-unit probabilities whose balanced mean is flat over every threshold THEN the
    answer threshold is where the answered and declined shares cross, not the first of the flat mean's
    ties; with one kind of question missing, the stated fallback."""
    answerable, unanswerable = [0.2, 0.4, 0.6, 0.8], [0.1, 0.3, 0.5, 0.7]
    assert best_threshold(answerable, unanswerable)[0] == 0.2  # the mean is 0.625 at 0.2, 0.4, 0.6 and 0.8
    assert equal_error_threshold(answerable, unanswerable) == 0.5  # half answered, half declined
    # One more answerable question near the top moves the crossing by one step, not across the range.
    assert equal_error_threshold([*answerable, 0.75], unanswerable) == 0.6
    assert equal_error_threshold(answerable, []) == ANSWER_FIT_FALLBACK_THRESHOLD
    assert equal_error_threshold([], unanswerable) == ANSWER_FIT_FALLBACK_THRESHOLD


# --- Which quotes: one fact, well quoted ------------------------------------------------

TEXT = (
    "Meeting rooms are booked in the calendar app.\n\n"
    "The large room seats twelve people around one table.\n\n"
    "The small room seats four people and has a whiteboard.\n\n"
    "Projectors are lent by the front desk for the day."
)


def _passage() -> Passage:
    return make_passage(TEXT, 1, ref="rooms", title="Meeting rooms", url="/rooms/")


def _select(monkeypatch, decision: Decision, probabilities: dict[str, float]) -> extractive.Selection:  # type: ignore[no-untyped-def]
    """The quote choice over ``TEXT`` where comparing by meaning gives each unit (by its first words)
    the similarity that makes its probability under ``decision`` the one given (others: far below)."""
    low = decision.threshold(ANSWER) / 10

    def by_meaning(_vector, pool, _shortlist, _embedder):  # type: ignore[no-untyped-def]
        for c in pool:
            wanted = next((p for start, p in probabilities.items() if c.unit.text.startswith(start)), low)
            c.similarity = _features_at(
                decision, wanted, words=c.words, kind=c.kind, kind_match=c.kind_match
            ).similarity
        return list(pool)

    monkeypatch.setattr(extractive, "score_by_meaning", by_meaning)
    embedder = SimpleNamespace(model_name=LOCAL_MODEL_NAME)
    return extractive.select_quotes("How many people does the large room seat?", "en", [_passage()], [1.0], embedder)  # type: ignore[arg-type]


def test_an_unsure_answer_is_its_lead_quote_alone(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    decision = _decision()
    between = (decision.threshold(ANSWER) + decision.threshold(SURE)) / 2
    selection = _select(monkeypatch, decision, {"The large room": between, "The small room": between * 0.99})
    assert selection.answerable and not selection.sure
    assert [q.sentence for q in selection.quotes] == ["The large room seats twelve people around one table."]
    assert selection.lead == pytest.approx(between)
    # shown as a passage to check: the likely unit between the units around it in its passage
    lead = selection.quotes[0]
    assert lead.before == "Meeting rooms are booked in the calendar app."
    assert lead.after == "The small room seats four people and has a whiteboard."


def test_a_sure_answer_adds_only_quotes_that_are_sure_too(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    decision = _decision()
    sure = decision.threshold(SURE)
    between = (decision.threshold(ANSWER) + sure) / 2
    lone = _select(monkeypatch, decision, {"The large room": (1 + sure) / 2, "The small room": between})
    assert lone.sure and [q.sentence for q in lone.quotes] == ["The large room seats twelve people around one table."]
    assert (lone.quotes[0].before, lone.quotes[0].after) == ("", "")  # a sure answer is the fact alone
    both = _select(monkeypatch, decision, {"The large room": (1 + sure) / 2, "The small room": (1 + sure) / 2 - 0.01})
    assert both.sure and [q.sentence.split()[:3] for q in both.quotes] == [
        ["The", "large", "room"],
        ["The", "small", "room"],
    ]


def test_a_policy_stored_before_sure_was_fitted_answers_unsure(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """GIVEN a stored answer decision without a sure threshold (fitted before it existed)
    THEN even its most probable answer is unsure, and quoted alone."""
    shipped = _decision()
    _store(_with_thresholds(shipped, {ANSWER: shipped.threshold(ANSWER)}))
    older = answer_decision(LOCAL_MODEL_NAME)
    assert older is not None and SURE not in older.thresholds
    assert not is_sure(0.999, older) and confidence(0.999, older) == UNSURE
    selection = _select(monkeypatch, older, {"The large room": 0.999, "The small room": 0.998})
    assert selection.answerable and not selection.sure and len(selection.quotes) == 1


# --- What the reader and the tools get --------------------------------------------------


@pytest.fixture
def rooms(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    space = make_space("office", viewers=("staff",))
    make_page(space, "Meeting rooms", ROOMS, ref="rooms")
    return make_user("bob", "staff")


def _lead_probability(user: Any) -> float:
    answer = answer_question(user=user, question=QUESTION, rate_limit=False, use_cache=False, log=False, use_llm=False)
    assert answer.selection is not None and answer.selection.score is not None, "the units were compared by meaning"
    return answer.selection.score


def _cli(user: Any, question: str = QUESTION) -> dict[str, Any]:
    out = StringIO()
    call_command("ask", question, "--user", user.username, "--json", "--no-cache", stdout=out)
    return json.loads(out.getvalue())


def _api(user: Any, question: str = QUESTION) -> dict[str, Any]:
    from accounts.services import token_create

    secret = token_create(user=user, name="test", scope="ask", days=30).secret
    response = Client().post(
        "/api/v1/ask", {"question": question}, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {secret}"
    )
    assert response.status_code == 200
    return response.json()


def test_ask_json_and_the_api_say_how_sure_on_each_side_of_the_stored_threshold(rooms) -> None:  # type: ignore[no-untyped-def]
    shipped = _decision()
    lead = _lead_probability(rooms)
    assert lead >= shipped.threshold(ANSWER)
    _store(_with_thresholds(shipped, {ANSWER: shipped.threshold(ANSWER), SURE: lead - 0.0005}))
    sure = _cli(rooms)
    assert sure["confidence"] == SURE and sure["probability"] == round(lead, 3)
    assert _api(rooms) == sure
    _store(_with_thresholds(shipped, {ANSWER: shipped.threshold(ANSWER), SURE: lead + 0.0005}))
    unsure = _cli(rooms)
    assert unsure["mode"] == "extractive" and unsure["confidence"] == UNSURE
    assert unsure["probability"] == round(lead, 3)
    assert unsure["answer"].count("“") == 1 and len(unsure["citations"]) == 1
    assert "seats 12 people" in unsure["citations"][0]["quote"]
    assert unsure["citations"][0]["context_before"].startswith("Meeting rooms are booked")
    assert sure["citations"][0]["context_before"] == sure["citations"][0]["context_after"] == ""
    assert _api(rooms) == unsure
    declined = _cli(rooms, "What is the capital of Peru?")
    assert declined["mode"] == "no_answer" and declined["confidence"] is None and declined["probability"] is None


def test_the_ask_page_shows_an_unsure_answer_as_a_passage_to_check(rooms) -> None:  # type: ignore[no-untyped-def]
    shipped = _decision()
    lead = _lead_probability(rooms)
    _store(_with_thresholds(shipped, {ANSWER: shipped.threshold(ANSWER), SURE: lead + 0.0005}))
    client = Client()
    client.force_login(rooms)
    page = client.post(reverse("ask"), {"q": QUESTION}).content.decode()
    assert page.count(UNSURE_HEADING) == 1 and 'class="answer-text"' not in page
    assert "seats 12 people" in page
    # the likely sentence is marked inside its context
    assert '<mark class="citation__likely">The large room on the third floor seats 12 people' in page
    assert "Meeting rooms are booked in the calendar app" in page
    fragment = client.post(reverse("ask"), {"q": QUESTION}, HTTP_HX_REQUEST="true").content.decode()
    assert fragment.count(UNSURE_HEADING) == 1 and 'class="answer-text"' not in fragment
    _store(_with_thresholds(shipped, {ANSWER: shipped.threshold(ANSWER), SURE: lead - 0.0005}))
    sure = client.post(reverse("ask"), {"q": QUESTION}).content.decode()
    assert UNSURE_HEADING not in sure and 'class="answer-text"' in sure
    assert "citation__likely" not in sure


def test_a_model_answer_is_sure_only_when_its_cited_passage_holds_a_sure_unit(rooms, fake_llm, settings) -> None:  # type: ignore[no-untyped-def]
    settings.SEARCH_TRANSLATE_QUERIES = False  # each queued reply is the answer
    shipped = _decision()
    lead = _lead_probability(rooms)
    for sure_from, level in ((lead - 0.0005, SURE), (lead + 0.0005, UNSURE)):
        _store(_with_thresholds(shipped, {ANSWER: shipped.threshold(ANSWER), SURE: sure_from}))
        fake_llm.queue_json({"answer": "The large room seats 12 people [1].", "sources": [1]})
        answer = answer_question(user=rooms, question=QUESTION, rate_limit=False, use_cache=False, log=False)
        assert answer.mode == "llm" and answer.confidence == level
        assert answer.as_json()["probability"] == round(lead, 3)


def test_the_unsure_heading_is_translated() -> None:
    passage = _passage()
    answer = Answer(QUESTION, "extractive", "“The large room seats twelve.” [1]", "en", [citation(passage, "q")])
    answer.confidence = UNSURE
    with override("fr"):
        html = render_to_string("search/ask.html#answer", _answer_context(QUESTION, answer))
    assert "Le manuel répond peut-être ici :" in html


def test_a_verified_reply_is_sure() -> None:
    from django.utils import timezone

    from search.verified.selectors import VerifiedReply

    verified = VerifiedReply(1, QUESTION, "Eve", timezone.now(), "Meeting rooms", "rooms", "/rooms/", 1, "en")
    answer = Answer(QUESTION, "no_answer", "", "en", verified=verified)
    body = answer.as_json()
    assert body["verified"]["confidence"] == SURE and body["confidence"] is None
