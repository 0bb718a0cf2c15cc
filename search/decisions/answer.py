"""Which units answer the question, and is there an answer? One fitted decision.

Ask's quote choice (``search/ask/extractive.py``) scores every unit it compares with the question by
meaning from named features:

- ``words``: the share of the question's words (IDF-weighted among the units at hand, names weighing
  more, the heading path and page title counting half) the unit holds;
- ``kind``: whether the unit is the kind of thing asked (a number for "how many", a person or team
  for "who", a place or link for "where"…), holds the names asked about, opens its section, or only
  leads in (``search/ask/fitted_kind.py``);
- ``similarity`` to the question, ``other_language`` (the unit is not in the question's language:
  its words are matched only through a sparse word translation) and their product;

Not its passage's rank: in the calibration material the nearest passage nearly always holds the
answer, while Ask's passages are several chunks of the best page, the one with the answer often
not the first (a definition first, the figure two sections down); learnt there, a rank prior would
outweigh the answer's own words.

The fitted probability (``search/calibration/answer_fit.py``) that the unit states the answer ranks
the units (by its logit); a unit is an answer from the ``answer`` threshold, and the passages answer
the question when their best unit is one. From the ``sure`` threshold an answer is shown as sure;
between the two it is shown as a passage to check, and quoted alone. The extra quotes of a sure answer
are sure too.

Without a policy for the model, similarities mean nothing known: the words choose and decide.
"""

from __future__ import annotations

from dataclasses import dataclass

from search.decisions.policy import Decision, decision_for

ANSWER = "answer"
SURE = "sure"
UNSURE = "unsure"
FEATURES = ("words", "kind", "similarity", "other_language", "other_language_similarity")


@dataclass(frozen=True)
class UnitFeatures:
    words: float
    kind: float
    similarity: float
    other_language: bool
    # Whether the unit holds the kind asked (``search/ask/asked_kind.py``): measured as a feature a fit may
    # take (``bench/ask_kind.py``), not one of ``FEATURES``.
    kind_match: float = 0.0

    def values(self) -> dict[str, float]:
        other = float(self.other_language)
        return {
            "words": self.words,
            "kind": self.kind,
            "similarity": self.similarity,
            "other_language": other,
            "other_language_similarity": other * self.similarity,
            "kind_match": self.kind_match,
        }


def answer_decision(model: str) -> Decision | None:
    """The fitted answer decision of ``model``, or None while it has no policy."""
    return decision_for(model, ANSWER)


def unit_score(features: UnitFeatures, decision: Decision) -> float:
    """The logit the units are ranked by."""
    return decision.logit(features.values())


def is_sure(probability: float, decision: Decision) -> bool:
    """Whether an answer whose best unit has ``probability`` is shown as sure."""
    # A policy stored before "sure" was fitted knows no level of trust: never sure by default.
    if SURE not in decision.thresholds:
        return False
    return probability >= decision.threshold(SURE)


def confidence(probability: float, decision: Decision | None) -> str:
    """``SURE`` or ``UNSURE`` for an answer (the caller decided it is one) whose best unit has ``probability``."""
    return SURE if decision is not None and is_sure(probability, decision) else UNSURE
