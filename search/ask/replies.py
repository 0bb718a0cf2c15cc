"""What Ask replies: the answer, its citations, and the explicit "no answer"."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core import languages
from search.ask.passages import Passage
from search.decisions.answer import SURE
from search.verified.selectors import VerifiedReply

if TYPE_CHECKING:
    from search.ask.extractive import Selection

NO_ANSWER_TEXT = {language.code: language.no_answer for language in languages.LANGUAGES}


class AskError(ValueError):
    """The question cannot be answered as asked; the message is for the user."""


@dataclass
class Citation:
    number: int
    ref: str
    title: str
    url: str
    anchor: str
    revision: int
    revision_id: int
    language: str
    quote: str = ""
    outdated: bool = False
    # An unsure quote's context in its passage (the units around it), shown with the quote marked.
    context_before: str = ""
    context_after: str = ""


@dataclass
class Answer:
    question: str
    mode: str  # "llm" | "extractive" | "no_answer"
    text: str
    language: str
    citations: list[Citation] = field(default_factory=list)
    notice: str = ""
    fallback: str = ""  # a FALLBACK_NOTICES reason when an LLM answer was replaced by quotes
    cached: bool = False
    log_id: int | None = None
    unsupported: list[str] = field(default_factory=list)  # model sentences left out by the check
    # An editor's verified answer to this question, shown first (never cached: it is the asker's own).
    verified: VerifiedReply | None = None
    confidence: str | None = None  # "sure" | "unsure" (search/decisions/answer.py); None for no_answer
    probability: float | None = None  # the fitted probability that the lead unit states the answer
    # The decision the quotes came from, whatever its threshold (an extractive answer made now; not
    # cached, not in the JSON): the bench and tests read it from the answer production gives.
    selection: Selection | None = field(default=None, repr=False, compare=False)

    def as_json(self) -> dict[str, Any]:
        return {
            "answer": self.text,
            "mode": self.mode,
            "citations": [
                {
                    "ref": c.ref,
                    "anchor": c.anchor,
                    "revision": c.revision,
                    "title": c.title,
                    "language": c.language,
                    "quote": c.quote,
                    "outdated": c.outdated,
                    "url": c.url,  # the page's address on the site, with the passage's anchor
                    "context_before": c.context_before,
                    "context_after": c.context_after,
                }
                for c in self.citations
            ],
            "language": self.language,
            "notice": self.notice,
            "fallback": self.fallback,
            # An editor vouched for it: as sure as Ask can be.
            "verified": self.verified.as_json() | {"confidence": SURE} if self.verified is not None else None,
            "confidence": self.confidence if self.mode != "no_answer" else None,
            "probability": round(self.probability, 3) if self.probability is not None else None,
        }


def citation(p: Passage, quote: str = "") -> Citation:
    return Citation(
        number=p.number,
        ref=p.ref,
        title=p.title,
        url=f"{p.url}#{p.anchor}" if p.anchor else p.url,
        anchor=p.anchor,
        revision=p.revision_number,
        revision_id=p.revision_id,
        language=p.language,
        quote=quote,
    )


def no_answer(question: str, language: str) -> Answer:
    return Answer(question, "no_answer", NO_ANSWER_TEXT.get(language, languages.DEFAULT.no_answer), language)
