"""When two wordings ask the same question: the same text once folded (case, accents,
punctuation), or question vectors close enough under the serving embedding model.

One rule for the Insights grouping (``search/gaps/grouping.py``) and verified answers
(``search/verified/``), so a question Insights counts as one is the one a verified answer answers.
"""

from __future__ import annotations

import re

from django.conf import settings

from core.text import fold_accents
from search.indexing.embedders import LOCAL_MODEL_NAME

# Near-duplicates of multilingual-e5-small score ~0.92-0.96, questions on a neighbouring topic
# ~0.80-0.90; other models spread differently (INSIGHTS_GROUP_SIMILARITY overrides).
LOCAL_SIMILARITY = 0.91
OTHER_SIMILARITY = 0.85
_PUNCTUATION = re.compile(r"[^\w\s]+")


def fold(text: str) -> str:
    return " ".join(_PUNCTUATION.sub(" ", fold_accents(text).lower()).split())


def similarity_threshold(model_name: str) -> float:
    """The least cosine similarity at which two question vectors of ``model_name`` ask the same question."""
    configured = getattr(settings, "INSIGHTS_GROUP_SIMILARITY", None)
    if configured:
        return float(configured)
    return LOCAL_SIMILARITY if model_name == LOCAL_MODEL_NAME else OTHER_SIMILARITY
