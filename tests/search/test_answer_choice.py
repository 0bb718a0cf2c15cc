"""The quote choice between units of the two languages (no database: candidates built by hand, scored
by a literal answer decision)."""

from __future__ import annotations

import pytest

from search.ask import extractive
from search.ask.passages import Passage
from search.decisions.answer import ANSWER, FEATURES, SURE, unit_score
from search.decisions.policy import Decision
from statements.answer_units import Unit
from tests.passages import make_passage

# logit = words + 10 × similarity + 0.5 if the unit is in another language − 9; an answer from p ≥ 0.5,
# sure from the same (extra quotes are sure ones).
DECISION = Decision(FEATURES, (1.0, 0.0, 10.0, 0.5, 0.0), -9.0, {ANSWER: 0.5, SURE: 0.5})


def _passage(number: int, language: str) -> Passage:
    return make_passage("", number, url=f"/p/{number}/", language=language, vector_distance=None)


def _candidate(text: str, passage: Passage, *, words: float, similarity: float, question_language: str = "fr"):  # type: ignore[no-untyped-def]
    unit = Unit(text, "sentence", "", "", text)
    candidate = extractive.Candidate(
        unit, passage, 0, words=words, similarity=similarity, other_language=passage.language != question_language
    )
    candidate.fitted = unit_score(candidate.features(), DECISION)
    return candidate


def test_a_closer_unit_in_the_other_language_beats_a_neighbouring_subject_on_shared_words() -> None:
    """GIVEN a French question, a French unit that shares its words but is about a neighbouring subject,
    and an English unit closer in meaning whose words only a sparse translation can match
    THEN the English unit scores higher; the same two units in the question's language keep the words' order."""
    french = _candidate("Le congé maternité dure seize semaines.", _passage(1, "fr"), words=0.5, similarity=0.85)
    english = _candidate("FMLA gives up to 12 weeks of unpaid leave.", _passage(2, "en"), words=0.2, similarity=0.88)
    assert english.score > french.score
    same = _candidate("FMLA gives up to 12 weeks of unpaid leave.", _passage(3, "fr"), words=0.2, similarity=0.88)
    assert english.score - same.score == pytest.approx(0.5)  # the decision's weight on another language
    close = _candidate("Le congé maternité dure seize semaines.", _passage(4, "fr"), words=0.5, similarity=0.88)
    assert close.score > same.score


def test_the_other_language_quote_takes_a_place_only_when_it_fits() -> None:
    """GIVEN three quotes that fill most of the 80 words WHEN the best unit in the other language is too
    long to replace the third THEN the three quotes stay (the third is not dropped for nothing)."""
    fr = _passage(1, "fr")
    chosen = [
        _candidate(" ".join(["mot"] * 30), fr, words=0.6, similarity=0.88),
        _candidate(" ".join(["mot"] * 25), fr, words=0.5, similarity=0.87),
        _candidate(" ".join(["mot"] * 20), fr, words=0.5, similarity=0.86),
    ]
    long_other = _candidate(" ".join(["word"] * 30), _passage(2, "en"), words=0.1, similarity=0.87)
    kept = list(chosen)
    extractive._quote_the_other_language(chosen[0], kept, [*chosen, long_other], "fr", DECISION)
    assert kept == chosen
    short_other = _candidate(" ".join(["word"] * 20), _passage(3, "en"), words=0.1, similarity=0.87)
    extractive._quote_the_other_language(chosen[0], kept, [*chosen, short_other], "fr", DECISION)
    assert kept == [chosen[0], chosen[1], short_other]


def test_a_unit_longer_than_the_budget_is_cut_within_it() -> None:
    """GIVEN a unit of 120 words (a long table row) THEN its quote, ellipsis included, stays within 80 words."""
    quote = extractive._cap(" ".join(f"w{i}" for i in range(120)))
    assert len(quote.split()) == extractive.MAX_WORDS and quote.endswith(" …")
    assert extractive._cap("short unit") == "short unit"


def test_the_other_language_quote_must_be_an_answer_itself() -> None:
    """GIVEN a short unit in the other language WHEN the decision says it is no answer (p < 0.5) THEN
    the quotes stay in the question's language; when it is one, it takes the last place."""
    fr = _passage(1, "fr")
    chosen = [_candidate(" ".join(["mot"] * 10), fr, words=0.6, similarity=0.88)]
    weak = _candidate(" ".join(["word"] * 10), _passage(2, "en"), words=0.0, similarity=0.8)  # logit −0.5
    kept = list(chosen)
    extractive._quote_the_other_language(chosen[0], kept, [*chosen, weak], "fr", DECISION)
    assert kept == chosen
    strong = _candidate(" ".join(["word"] * 10), _passage(3, "en"), words=0.0, similarity=0.86)  # logit 0.1
    extractive._quote_the_other_language(chosen[0], kept, [*chosen, strong], "fr", DECISION)
    assert kept == [chosen[0], strong]
