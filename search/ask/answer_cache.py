"""Answers cached per person and per exact passages, and marked when a source changed since."""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import asdict, replace
from typing import Any

from django.conf import settings
from django.core.cache import cache

from config.numbers import ANSWER_FORMAT_VERSION
from config.numbers import ASK_CACHE_TTL_S as CACHE_TTL_S
from handbook.models import Page
from search.ask.passages import Passage
from search.ask.replies import Answer, Citation
from search.decisions.policy import Decision

logger = logging.getLogger(__name__)


def cache_key(
    question: str, passages: list[Passage], mode: str, owner: Any = None, *, decision: Decision | None = None
) -> str:
    """Per person (``owner``): a shared entry would answer in milliseconds a question somebody else
    asked recently, and its timing would tell. Per passages: an edited source is a new answer.
    ``decision``: the serving model's answer decision when the passages carry the question's meaning."""
    material = json.dumps(
        [
            ANSWER_FORMAT_VERSION,
            owner,
            question.strip().lower(),
            mode,
            settings.LLM_MODEL if mode == "llm" else "",
            [(p.chunk_id, p.content_hash, p.revision_id) for p in passages],
            _answer_decision_of(decision),
        ]
    )
    return "ask:" + hashlib.sha256(material.encode()).hexdigest()


def _answer_decision_of(decision: Decision | None) -> list[Any]:
    """The answer decision the passages' model answers by: a new fit decides (and says how sure) anew,
    rather than an hour later."""
    if decision is None:
        return []
    return [decision.intercept, list(decision.weights), sorted(decision.thresholds.items())]


def mark_outdated(answer: Answer) -> None:
    """'Source updated since': the cited revision is no longer the page's published one."""
    current = dict(
        Page.objects.filter(ref__in=[c.ref for c in answer.citations]).values_list("ref", "published_revision_id")
    )
    for citation in answer.citations:
        citation.outdated = current.get(citation.ref) != citation.revision_id


def from_cache(key: str) -> Answer | None:
    try:
        raw = cache.get(key)
    except Exception:
        return None
    if not raw:
        return None
    data = dict(raw)
    data["citations"] = [Citation(**c) for c in data["citations"]]
    return Answer(**data)


def to_cache(key: str, answer: Answer) -> None:
    try:
        kept = replace(answer, log_id=None, cached=False, verified=None, selection=None)  # the reply, not its making
        cache.set(key, asdict(kept), CACHE_TTL_S)
    except Exception:
        logger.warning("answer cache unavailable")
