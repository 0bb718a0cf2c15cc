"""Which units answer the question, and is there an answer? One fitted decision.

Ask's quote choice (``search/ask/extractive.py``) scores every unit it compares with the question by
meaning from named features:

- ``words``: the share of the question's words (IDF-weighted among the units at hand, names weighing
  more) the unit holds;
- ``kind_held``: 1 when the unit is the kind of thing asked (a number for "how many", a person or team
  for "who", a place or link for "where"…), -1 when it lacks the number a quantity question wants
  or only leads in (ends with a colon or a question mark), 0 otherwise (``search/ask/fitted_kind.py``);
  a section's opening statement adds ``ASK_OPENING_BONUS`` to it;
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

Before units are compared by meaning, and for a model without a policy (its similarities mean
nothing known yet), the units are ordered by their **evidence**: the fitted weights of the features
that do not depend on the model (words, kind held) over those features, from the model's
own decision or else the bundled model's, in units of the words' weight; on evidence alone (with the
passage's rank prior, ``ASK_RANK_PRIOR``), a unit answers when it holds more than the prior.
"""

from __future__ import annotations

from dataclasses import dataclass

from search.decisions.policy import Decision, decision_for
from search.embedding.embedders import LOCAL_MODEL_NAME

ANSWER = "answer"
SURE = "sure"
UNSURE = "unsure"
FEATURES = ("words", "kind_held", "similarity", "other_language", "other_language_similarity")
# The features that do not depend on the embedding model: the units' order before they are compared by meaning.
EVIDENCE = ("words", "kind_held")


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
            "kind_held": self.kind,
            "similarity": self.similarity,
            "other_language": other,
            "other_language_similarity": other * self.similarity,
            "kind_match": self.kind_match,
        }


def answer_decision(model: str) -> Decision | None:
    """The fitted answer decision of ``model``, or None while it has no policy."""
    return decision_for(model, ANSWER)


def evidence_decision(model: str | None) -> Decision | None:
    """The decision whose evidence weights order ``model``'s units: its own, else the bundled model's."""
    return (answer_decision(model) if model else None) or answer_decision(LOCAL_MODEL_NAME)


def weigh_evidence(features: UnitFeatures, decision: Decision | None) -> float:
    """A unit's evidence: the decision's fitted weights over ``EVIDENCE``, in units of the words' weight
    (a share of the question's words, as the words alone are without a decision)."""
    values = features.values()
    weights = dict(zip(decision.features, decision.weights, strict=True)) if decision is not None else {}
    if weights.get("words", 0.0) <= 0:
        return values["words"]
    return sum(weights[name] * values[name] for name in EVIDENCE if name in weights) / weights["words"]


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
