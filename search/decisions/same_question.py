"""When two wordings ask the same question: the same text once folded (case, accents,
punctuation), or question vectors close enough under the serving embedding model — the least
cosine fitted per model (``search/calibration/same_question_fit.py``, stored in its policy).
Without a policy for the model, only the same folded wording is the same question.

One rule for the Insights grouping (``search/insights/grouping.py``) and verified answers
(``search/verified/``), so a question Insights counts as one is the one a verified answer answers.
"""

from __future__ import annotations

import re

from django.conf import settings

from core.text import fold_accents
from search.decisions.policy import decision_for

SAME_QUESTION = "same_question"
NEVER = 1.01  # no cosine reaches it: only the same folded wording matches
_PUNCTUATION = re.compile(r"[^\w\s]+")


def fold(text: str) -> str:
    return " ".join(_PUNCTUATION.sub(" ", fold_accents(text).lower()).split())


def similarity_threshold(model_name: str) -> float:
    """The least cosine similarity at which two question vectors of ``model_name`` ask the same question
    (``INSIGHTS_GROUP_SIMILARITY``: an expert's override of the fitted one)."""
    configured = getattr(settings, "INSIGHTS_GROUP_SIMILARITY", None)
    if configured:
        return float(configured)
    decision = decision_for(model_name, SAME_QUESTION)
    return decision.threshold("similarity") if decision is not None else NEVER
