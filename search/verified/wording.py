"""How a verified answer's wording is compared with a reader's question: the same-question rule
Insights groups by (``search/decisions/same_question.py``), over the vector retrieval computes for it."""

from __future__ import annotations

import hashlib
import logging
import unicodedata

from django.utils.translation import gettext

from config.numbers import RAW_QUESTION_FACTOR
from config.numbers import VERIFIED_MAX_QUESTION_CHARS as MAX_QUESTION_CHARS
from search.decisions.same_question import fold, related_threshold, similarity_threshold
from search.embedding.model_switch import query_embedder
from search.retrieval.query import parse_query
from search.retrieval.query_embedding import query_embedding

logger = logging.getLogger(__name__)

__all__ = ["clean_question", "fold", "question_vector", "related_distance", "same_question_distance", "unit_hash"]


def clean_question(text: str) -> str:
    """The question as Ask reads it; ValueError (a message for the editor) when there is none."""
    raw = (text or "")[: MAX_QUESTION_CHARS * RAW_QUESTION_FACTOR]
    # Control characters are not words (Postgres text refuses NUL); whitespace is collapsed.
    cleaned = " ".join("".join(" " if unicodedata.category(ch).startswith("C") else ch for ch in raw).split())
    if not cleaned.strip():
        raise ValueError(gettext("Please type the question."))
    if len(cleaned) > MAX_QUESTION_CHARS:
        raise ValueError(
            gettext("The question is too long (%(length)d characters); the limit is %(limit)d.")
            % {"length": len(cleaned), "limit": MAX_QUESTION_CHARS}
        )
    return cleaned


def unit_hash(text: str) -> str:
    """A unit's address across revisions: its text (an edit to the sentence makes a new unit)."""
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:16]


def same_question_distance(model_name: str) -> float:
    """The largest cosine distance at which two wordings ask the same question, for this model."""
    return 1.0 - similarity_threshold(model_name)


def related_distance(model_name: str) -> float:
    """The largest cosine distance at which a wording asks the same question if, besides, what the new
    wording finds nearest among Ask's passages is a unit its editor verified."""
    return 1.0 - related_threshold(model_name)


def question_vector(question: str) -> tuple[list[float] | None, str]:
    """The question's vector as retrieval computes it, and the model's name; (None, "") without one."""
    try:
        embedder = query_embedder()
        if embedder is None:
            return None, ""
        return query_embedding(parse_query(question).raw, embedder), embedder.model_name
    except Exception as exc:  # exact wordings still match
        logger.warning("no question vector for a verified answer: %s", exc)
        return None, ""
