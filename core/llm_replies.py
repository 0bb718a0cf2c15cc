"""The shapes of the JSON replies the model is asked for, validated with pydantic.

A reply that does not fit its shape is an ``LLMError`` ("wrong shape"): the caller falls
back (quoted sentences, an extractive summary, no translation) rather than showing it.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from core.llm import LLMError

Reply = TypeVar("Reply", bound=BaseModel)


class AnswerReply(BaseModel):
    """Ask (``search/ask/prompts.py``): the answer with [n] markers and the passages it cites."""

    answer: str
    sources: list[Any] = []  # numbers or passage ids; those that name no passage sent are dropped


class SummaryReply(BaseModel):
    """A page summary (``summaries/generate.py``)."""

    summary: str
    key_points: list[str] = []


class TranslationReply(BaseModel):
    """A search query translated (``search/retrieval/query_translation.py``)."""

    translation: str


def parse_reply(model: type[Reply], reply: Any, what: str = "reply") -> Reply:
    try:
        return model.model_validate(reply)
    except ValidationError as exc:
        fields = ", ".join(sorted({str(error["loc"][0]) for error in exc.errors() if error["loc"]})) or "its type"
        raise LLMError(f"{what} has the wrong shape ({fields})") from None
