"""What a calibration query's shipped-query features may not see (``search/calibration/query_fit.py``)."""

from __future__ import annotations

from search.calibration.calibration_set import CalibrationQuestion, CalibrationSet
from search.calibration.query_fit import _left_out


def test_a_question_does_not_see_its_passage_s_questions_and_a_no_match_query_not_itself() -> None:
    """A real query is never in the shipped sets: a calibration question compared with its own line or
    its paraphrases on the same passage would be nearer them than any real question is."""
    material = CalibrationSet(
        passages=(),
        questions=(
            CalibrationQuestion("How many days off do I get?", "en", "leave"),
            CalibrationQuestion(" annual leave days ", "en", "leave"),
            CalibrationQuestion("Where do I park?", "en", "parking"),
        ),
        unanswerable=(),
        no_match=(("banana bread recipe", "en"), ("asdf", "none")),
    )
    left_out = _left_out(material)
    leave = frozenset({"How many days off do I get?", "annual leave days"})
    assert left_out == [
        leave,
        leave,
        frozenset({"Where do I park?"}),
        frozenset({"banana bread recipe"}),
        frozenset({"asdf"}),
    ]
