"""Checking the model's answer against the passages it was sent.

A source that names no passage sent is dropped; markers pointing nowhere are removed;
an answer citing nothing is not grounded (None); a figure the cited passages (and the
question) do not contain refuses the answer (``UnsupportedAnswer``).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from core.llm import LLMError
from core.llm_replies import AnswerReply, parse_reply
from search.ask.passages import Passage
from search.ask.replies import Answer, citation, no_answer

logger = logging.getLogger(__name__)

MARKER = re.compile(r"\[(\d{1,2})\]")


class UnsupportedAnswer(LLMError):
    """The model's answer states something its cited passages do not."""


def grounded(reply: dict[str, Any], passages: list[Passage], question: str, language: str) -> Answer | None:
    """Validate the model's JSON; None when it isn't a grounded answer."""
    if reply.get("no_answer") is True:
        return no_answer(question, language)
    parsed = parse_reply(AnswerReply, reply)
    text, sources = parsed.answer.strip(), parsed.sources
    by_number = {p.number: p for p in passages}
    by_id = {p.passage_id: p for p in passages}
    cited: list[Passage] = []
    for source in sources:
        passage = (
            by_number.get(source)
            if isinstance(source, int)
            else (by_id.get(source) or (by_number.get(int(source)) if str(source).isdigit() else None))
        )
        if passage is None:
            logger.warning("LLM cited a source it was not sent: %r", source)
            continue
        if passage not in cited:
            cited.append(passage)
    # Markers in the text that point nowhere are removed rather than shown as citations.
    for number in {int(m) for m in MARKER.findall(text)}:
        if number not in by_number:
            logger.warning("LLM answer has marker [%d] for a passage it was not sent", number)
            text = text.replace(f"[{number}]", "")
        elif by_number[number] not in cited:
            cited.append(by_number[number])
    if not text and not cited:
        return no_answer(question, language)
    if not cited or not text:
        return None
    unsupported = unsupported_figures(text, cited, question)
    if unsupported:
        raise UnsupportedAnswer(f"answer states figures its sources do not contain: {sorted(unsupported)}")
    return Answer(question, "llm", text, language, [citation(p) for p in sorted(cited, key=lambda p: p.number)])


# A figure: a quantity standing alone, digits with thousands grouped by commas, dots or spaces
# ("61,000", "61 000") or a decimal; not part of a code or a word ("E3", "v2", "3rd") nor an
# enumeration or call in brackets ("(1)").
_FIGURE = re.compile(r"(?<![\w(\[.,])\d+(?:[.,\u00a0\u202f ]\d{3})*(?:[.,]\d+)?(?![\w)\]])")
_NUMBER_WORDS = {
    word: str(value)
    for value, words in enumerate(
        [
            ("zero", "zéro"), ("one", "un", "une"), ("two", "deux"), ("three", "trois"), ("four", "quatre"),
            ("five", "cinq"), ("six",), ("seven", "sept"), ("eight", "huit"), ("nine", "neuf"), ("ten", "dix"),
            ("eleven", "onze"), ("twelve", "douze"), ("thirteen", "treize"), ("fourteen", "quatorze"),
            ("fifteen", "quinze"), ("sixteen", "seize"), ("seventeen",), ("eighteen",), ("nineteen",),
            ("twenty", "vingt"),
        ]
    )
    for word in words
} | {"thirty": "30", "trente": "30", "forty": "40", "quarante": "40", "fifty": "50", "cinquante": "50"}  # fmt: skip


def _figures(text: str, *, words: bool = False) -> set[str]:
    found = {re.sub(r"\D", "", m) for m in _FIGURE.findall(MARKER.sub(" ", text))}
    if words:
        found |= {_NUMBER_WORDS[w] for w in re.findall(r"[^\W\d_]+", text.lower()) if w in _NUMBER_WORDS}
    return found


_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)


def unsupported_figures(text: str, cited: list[Passage], question: str) -> set[str]:
    """Figures of the answer found in none of its cited passages nor the question.

    A sentence that invents a number (days, amounts, dates) is the costly kind of
    unsupported statement, and the one a check can see whatever the languages: figures
    are written the same way in both. Passages count small numbers written as words.
    """
    # Addresses are not statements: their digits (hosts, ports, paths) are not checked as facts.
    stated = _figures(_URL.sub(" ", text))
    if not stated:
        return set()
    known = _figures(question, words=True)
    for passage in cited:
        known |= _figures(passage.text, words=True)
    return stated - known
