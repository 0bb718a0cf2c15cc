"""Checking the model's answer against the passages it was sent.

A source that names no passage sent is dropped; markers pointing nowhere are removed;
an answer citing nothing is not grounded (None). Then every sentence is checked
against the passages it cites (its figures, its names, its meaning:
``statements/statement_check.py``): an unsupported sentence is left out, with a notice,
and an answer with no supported sentence is refused (``UnsupportedAnswer``).
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from django.utils.translation import gettext_lazy
from pydantic import BaseModel

from core.llm import LLMError, parse_reply
from search.ask.extractive import select_quotes
from search.ask.passages import Passage, embedder_for
from search.ask.replies import Answer, citation, no_answer
from search.ask.unit_embeddings import sentence_vectors, unit_vectors
from search.decisions.answer import SURE, UNSURE
from search.decisions.statement_floor import meaning_floor
from statements.answer_units import passage_units
from statements.statement_check import MARKER as STATEMENT_MARKER
from statements.statement_check import (
    MeaningFloor,
    Similarity,
    Source,
    Verdict,
    check_sentences,
    figures,
    known_figures,
)

logger = logging.getLogger(__name__)

MARKER = STATEMENT_MARKER


class UnsupportedAnswer(LLMError):
    """The model's answer states something its cited passages do not."""


class AnswerReply(BaseModel):
    """The reply Ask asks for (``search/ask/prompts.py``): the answer with [n] markers and the passages it cites."""

    answer: str
    sources: list[Any] = []  # numbers or passage ids; those that name no passage sent are dropped


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
    kept, dropped = supported_sentences(text, cited, question, language)
    if not kept:
        raise UnsupportedAnswer(f"no sentence of the answer is supported by its sources: {dropped}")
    answer = Answer(question, "llm", kept, language, [citation(p) for p in sorted(cited, key=lambda p: p.number)])
    if dropped:
        answer.unsupported = dropped
        answer.notice = str(UNSUPPORTED_NOTICE)
    return answer


def with_confidence(answer: Answer, passages: list[Passage], question: str, language: str) -> Answer:
    """The model's checked answer is sure only when the passages its kept sentences cite hold a unit
    the answer decision is sure of: the quote choice is run over those passages alone, and its lead
    decides (the check says a sentence rests on its cited passages, not on which of their units)."""
    if answer.mode != "llm":
        return answer
    cited = {int(n) for n in MARKER.findall(answer.text)} or {c.number for c in answer.citations}
    resting = [p for p in passages if p.number in cited]
    embedder = embedder_for(resting)
    vector = next((p.question_vector for p in resting if p.question_vector), None)
    selection = select_quotes(question, language, resting, vector, embedder)
    answer.confidence = SURE if selection.sure else UNSURE
    answer.probability = selection.lead
    return answer


UNSUPPORTED_NOTICE = gettext_lazy("A sentence of the generated answer was left out: its sources do not say it.")


def supported_sentences(text: str, cited: list[Passage], question: str, language: str) -> tuple[str, list[str]]:
    """(the answer's supported sentences joined, the sentences left out): each written sentence is
    checked on its own against the passages it cites (``statements/statement_check.py``), by the
    meaning floor fitted for the index's model (none without its policy: figures, names and words decide)."""
    embedder = embedder_for(cited)
    floor = meaning_floor(embedder.model_name) if embedder is not None else None
    verdicts = sentence_verdicts(text, cited, question, language, floor=floor)
    for v in verdicts:
        if not v.supported:
            logger.warning("LLM sentence left out (%s %s): %r", v.reason, v.detail, v.sentence[:200])
    kept = " ".join(v.sentence for v in verdicts if v.supported)
    return kept, [v.sentence for v in verdicts if not v.supported]


def sentence_verdicts(
    text: str, cited: list[Passage], question: str, language: str, *, floor: MeaningFloor | None
) -> list[Verdict]:
    """The check's verdict on every sentence of ``text``, against the units of the passages it cites."""
    units = passage_units(cited)
    sources = [Source(p.number, p.text, p.language, tuple(u.text for u in units.get(p.number, []))) for p in cited]
    return check_sentences(
        text,
        sources,
        language=language,
        question=question,
        similarity=_similarity_for(cited, {u.text: p.chunk_id for p in cited for u in units.get(p.number, [])}),
        floor=floor,
    )


def _similarity_for(cited: list[Passage], chunk_of: dict[str, int]) -> Similarity | None:
    """Cosines of written sentences to the passages' units with the index's model; None without one.

    ``chunk_of`` gives each unit's chunk: units' vectors are read as stored at index time."""
    embedder = embedder_for(cited)
    if embedder is None:
        return None

    def similarity(sentences: list[str], statements: list[str]) -> list[list[float]]:
        vectors = np.asarray(
            list(sentence_vectors(sentences, embedder))
            + list(unit_vectors([(chunk_of.get(s, 0), s) for s in statements], embedder)),
            dtype=np.float32,
        )
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
        return (vectors[: len(sentences)] @ vectors[len(sentences) :].T).tolist()

    def guarded(sentences: list[str], statements: list[str]) -> list[list[float]]:
        try:
            return similarity(sentences, statements)
        except Exception as exc:  # no vectors now: meaning is judged by words (figures still checked)
            logger.warning("sentence check without vectors: %s", exc)
            return [[1.0] * len(statements) for _ in sentences]

    return guarded


def unsupported_figures(text: str, cited: list[Passage], question: str) -> set[str]:
    """Figures of the answer found in none of its cited passages nor the question (the whole answer
    at once; ``supported_sentences`` checks each sentence against its own citations)."""
    return figures(text) - known_figures(question, (p.text for p in cited))
