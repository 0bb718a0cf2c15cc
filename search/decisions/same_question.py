"""When two wordings ask the same question: the same text once folded (case, accents,
punctuation), or question vectors close enough under the serving embedding model — the least
cosine fitted per model (``search/calibration/same_question_fit.py``, stored in its policy).
Without a policy for the model, only the same folded wording is the same question.

A verified answer also takes a second look at wordings a little farther (``related_threshold``): they
ask the same question when what they find nearest among Ask's passages is what the editor verified.

One rule for the Insights grouping (``search/insights/grouping.py``) and verified answers
(``search/verified/``), so a question Insights counts as one is the one a verified answer answers.
"""

from __future__ import annotations

import re

from django.conf import settings

from config.numbers import SAME_QUESTION_NEVER as NEVER
from core.text import fold_accents
from search.decisions.policy import decision_for

SAME_QUESTION = "same_question"
SIMILARITY, RELATED = "similarity", "related"  # the decision's thresholds (calibration/same_question_fit.py)
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
    return decision.threshold(SIMILARITY) if decision is not None else NEVER


def related_threshold(model_name: str) -> float:
    """The least cosine at which a wording of ``model_name`` asks the same question when, besides, what
    the new wording finds nearest among Ask's passages is a unit the editor verified (the second look of
    ``search/verified/selectors.py``). The same as ``similarity_threshold`` without a fitted one, or when
    an expert set the similarity."""
    decision = decision_for(model_name, SAME_QUESTION)
    if getattr(settings, "INSIGHTS_GROUP_SIMILARITY", None) or decision is None:
        return similarity_threshold(model_name)
    return min(decision.thresholds.get(RELATED, NEVER), similarity_threshold(model_name))
