"""The meaning floor of the sentence check (``statements/statement_check.py``) for one embedding model.

A written sentence is kept only if its cosine to its closest source statement reaches a floor, and a
statement in another language gets an offset. Both cosines are a property of the embedding model
(multilingual-e5 puts any two texts above 0.7, other models put unrelated texts near 0), so they are
fitted per model (``search/calibration/statement_fit.py``) and read here from its policy. Beside
them, the share of a sentence's content words its sources may lack (the words test), fitted so that
both tests together keep what the floor alone keeps.

Without the entry (no policy, or a policy fitted before the entry existed, or on a company's own
material alone): None, and the check judges no sentence by its cosine — its figures (which must be
those of the statements it is closest to), names and words decide. No other model's numbers are
used: on another scale they would keep every sentence or none. A policy with the floor but fitted
before the share: the floor, and a sentence is refused by its words when most of them are new.
"""

from __future__ import annotations

from search.decisions.policy import decision_for
from statements.statement_check import MeaningFloor

STATEMENT_CHECK = "statement_check"
MIN_SIMILARITY = "min_similarity"
CROSS_LANGUAGE_OFFSET = "cross_language_offset"
MAX_NEW_WORDS = "max_new_words"


def meaning_floor(model: str) -> MeaningFloor | None:
    """The fitted floor, cross-language offset and new-words share of ``model``; None when its policy
    has no floor."""
    decision = decision_for(model, STATEMENT_CHECK)
    if decision is None or MIN_SIMILARITY not in decision.thresholds:
        return None
    return MeaningFloor(
        decision.threshold(MIN_SIMILARITY),
        decision.thresholds.get(CROSS_LANGUAGE_OFFSET, 0.0),
        decision.thresholds.get(MAX_NEW_WORDS),
    )
