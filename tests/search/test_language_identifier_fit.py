"""The language identifier's trusted confidence is fitted, not typed: ``manage.py fit_language_identifier``
over the shipped calibration material gives the shipped number, and ``detect_language`` trusts the
identifier from it."""

from __future__ import annotations

import json
import math
from io import StringIO

from django.core.management import call_command

from core import languages
from core.text import LanguageEvidence, detect_language, language_evidence
from search.calibration.calibration_set import calibration_set
from search.calibration.language_fit import NEVER, best_confidence, fit_identifier_confidence


def test_the_shipped_confidence_is_what_the_fit_gives_on_the_shipped_material() -> None:
    shipped = json.loads(languages.IDENTIFIER_FIT.read_text(encoding="utf-8"))
    assert fit_identifier_confidence(calibration_set()) == shipped
    out = StringIO()
    call_command("fit_language_identifier", "--check", stdout=out)
    assert json.loads(out.getvalue()) == shipped
    right = shipped["report"]["right_among_undecided"]
    assert right["fitted"] >= max(right["always_trusted"], right["never_trusted"])


def test_the_fit_keeps_the_confidence_right_most_often_and_of_equals_the_highest() -> None:
    def guess(language: str, confidence: float, lean: str | None = None) -> LanguageEvidence:
        return LanguageEvidence(guess=language, confidence=confidence, lean=lean)

    evidence = [
        (guess("fr", 0.55, lean="en"), "en"),  # trusted this low, the identifier is wrong
        (guess("fr", 0.62), "fr"),
        (guess("fr", 0.64), "fr"),
        (guess("en", 0.9), "en"),
    ]
    threshold, right = best_confidence(evidence, "en")
    assert threshold == 0.62 and right == {"fitted": 4, "always_trusted": 3, "never_trusted": 2}
    # Nothing undecided, or the identifier never right: it is never trusted.
    assert best_confidence([], "en")[0] == NEVER and NEVER > 1.0
    assert best_confidence([(guess("fr", 0.8), "en")], "en")[0] == NEVER


def test_detect_language_trusts_the_identifier_from_the_fitted_confidence(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    text = "contractor email signature"  # no stop word, no accent: the heuristic cannot tell
    evidence = language_evidence(text, "en", languages.CODES)
    assert evidence.settled is None and evidence.guess is not None
    assert evidence.guess != (evidence.lean or languages.DEFAULT.code)  # the two ways disagree here
    monkeypatch.setattr(languages, "identifier_min_confidence", lambda: evidence.confidence)
    assert detect_language(text) == evidence.guess
    monkeypatch.setattr(languages, "identifier_min_confidence", lambda: math.nextafter(evidence.confidence, 2.0))
    assert detect_language(text) == (evidence.lean or languages.DEFAULT.code)
