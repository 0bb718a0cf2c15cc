"""Fit the confidence from which py3langid's guess of a text's language is trusted (``core/text.py``).

Most texts are settled by the stop-word / accent heuristic; the others go to py3langid, whose guess
is taken from a confidence, else the heuristic's weak lean, else the default language. Every text of
the calibration material whose language is labelled (the handbook's passages, the questions, the
off-topic queries) is run through the same evidence as serving; among the confidences py3langid gave
the undecided ones, the fit keeps the one with the most texts given their labelled language, and of
equals the highest (py3langid trusted no further than the material shows it pays).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from core import languages
from core.text import LanguageEvidence, language_evidence
from search.calibration.calibration_set import CalibrationSet

NEVER = math.nextafter(1.0, 2.0)  # above any confidence: py3langid never trusted


def labelled_texts(material: CalibrationSet) -> list[tuple[str, str]]:
    """(text, language) of every text of the material labelled with one of the handbook's languages."""
    texts = [(p.text, p.language) for p in material.passages]
    texts += [(q.text, q.language) for q in (*material.questions, *material.unanswerable, *material.rejected)]
    texts += list(material.no_match)
    return [(text, language) for text, language in texts if language in languages.CODES]


def best_confidence(evidence: Iterable[tuple[LanguageEvidence, str]], default: str) -> tuple[float, dict[str, int]]:
    """The confidence giving the most texts their language (of equals, the highest), and the counts."""
    evidence = list(evidence)

    def right(threshold: float) -> int:
        return sum(e.language(threshold, default) == language for e, language in evidence)

    candidates = sorted({e.confidence for e, _language in evidence if e.guess is not None} | {NEVER})
    best = max(candidates, key=lambda t: (right(t), t))
    return best, {"fitted": right(best), "always_trusted": right(0.0), "never_trusted": right(NEVER)}


def fit_identifier_confidence(material: CalibrationSet) -> dict[str, Any]:
    """The fitted confidence and its report, as ``core/language_identifier.json`` holds them."""
    default = languages.DEFAULT.code
    texts = labelled_texts(material)
    evidence = [(language_evidence(text, default, languages.CODES), language) for text, language in texts]
    undecided = [(e, language) for e, language in evidence if e.settled is None]
    threshold, right = best_confidence(undecided, default)
    return {
        "min_confidence": threshold,
        "report": {
            "material": material.digest(),
            "texts": len(texts),
            "undecided_by_the_heuristic": len(undecided),
            "right_among_undecided": right,
            "rule": "the confidence giving the most undecided texts their labelled language; of equals, the highest",
        },
    }
