"""The answer quoted from the passages: the decision on their units (``search/ask/extractive.py``),
written as quotes with their citations, or the explicit no_answer."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from core import languages
from search.ask.extractive import Candidate, Quote, Selection, select_quotes
from search.ask.passages import Passage, embedder_for
from search.ask.quote_learning import learnt_order
from search.ask.replies import Answer, Citation, citation, no_answer
from search.decisions.answer import SURE, UNSURE
from search.retrieval.query import parse_query
from search.retrieval.query_embedding import query_embedding

logger = logging.getLogger(__name__)

LANGUAGE_NAMES = languages.NAMES


def extractive_answer(
    question: str, language: str, passages: list[Passage], notice: str = "", *, reader: Any = None, embedder: Any = None
) -> Answer:
    """The answer quoted from ``passages``; their order learnt from verified answers when ``reader``
    may read every page that taught it (``search/ask/quote_learning.py``). ``embedder``: the serving
    one as the passages' retrieval resolved it (else resolved here)."""
    vector, embedder = question_vector(question, passages, embedder_for(passages, embedder))
    selection = select_quotes(question, language, passages, vector, embedder, reorder=learnt(embedder, reader))
    return quoted_answer(question, language, selection, notice)


def learnt(embedder: Any, reader: Any) -> Callable[[list[Candidate]], None] | None:
    """The order learnt from verified answers for this model, as ``reader`` may see it; None: no model."""
    return partial(learnt_order, model=embedder.model_name, reader=reader) if embedder is not None else None


def quoted_answer(question: str, language: str, selection: Selection, notice: str = "") -> Answer:
    """The answer the decision gives: its quotes when the passages answer, else no_answer; either way
    carrying the decision (``Answer.selection``)."""
    if selection.answerable:
        answer = quoting(question, language, selection.quotes)
        answer.confidence = SURE if selection.sure else UNSURE
        answer.probability = selection.lead
    else:
        answer = no_answer(question, language)
    answer.notice = notice
    answer.selection = selection
    return answer


def quoting(question: str, language: str, quotes: Sequence[Quote]) -> Answer:
    """The answer that quotes ``quotes``, each with its citation (the bench reads a would-be answer
    below the threshold through it)."""
    parts: list[str] = []
    citations: list[Citation] = []
    # Each page is a source once (two passages of one page are one source), listing every sentence
    # quoted from it.
    sources: dict[tuple[int, str], Citation] = {}
    for quote in quotes:
        passage = quote.passage
        source = sources.get((passage.page_id, passage.ref))
        if source is None:
            source = sources[(passage.page_id, passage.ref)] = citation(passage, quote.sentence)
            source.number = len(citations) + 1
            source.context_before, source.context_after = quote.before, quote.after
            citations.append(source)
        elif quote.sentence not in source.quote:
            source.quote = f"{source.quote} … {quote.sentence}"
        label = f"[{source.number}]"
        if passage.language != language:  # say which language a quoted sentence is in
            label = f"({LANGUAGE_NAMES.get(passage.language, passage.language)}) {label}"
        parts.append(f"“{quote.sentence}” {label}")
    return Answer(question, "extractive", " ".join(parts), language, citations)


def question_vector(question: str, passages: list[Passage], embedder: Any) -> tuple[list[float] | None, Any]:
    """The question's vector as retrieval computed it, and the embedder to compare units with, when the
    passages came with the question's meaning (``embedder``: ``embedder_for``'s); (None, None): words decide."""
    # Retrieval's own vector, even when no passage came from a vector list (the similarity floor
    # can leave only keyword hits): the units are still compared with the question by meaning.
    if embedder is None:
        return None, None
    known = next((p.question_vector for p in passages if p.question_vector), None)
    if known is not None:
        return known, embedder
    try:  # passages built by hand (tests, tools): no person's cache is involved
        return query_embedding(parse_query(question).raw, embedder), embedder
    except Exception as exc:
        logger.warning("question embedding unavailable for the sentence check: %s", exc)
        return None, None
