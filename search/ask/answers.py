"""Ask: answers that cite the passages they come from.

- Retrieval is the same permission-filtered hybrid search as /search/.
- With an LLM configured, the model answers from numbered passages in JSON
  ``{"answer", "sources"}``; every source is checked against what was sent.
  An answer citing nothing it was sent is never shown as grounded.
- Without an LLM (or when it fails), the answer is extractive: sentences
  quoted verbatim from the passages, each with its citation.
- The LLM has one time budget per question, for all its calls
  (``ASK_LLM_BUDGET_S``; streamed, its first words within
  ``ASK_LLM_FIRST_TOKEN_S``), counted from when the model is asked: retrieval,
  which needs no model, comes before. Query translation is no longer part of it:
  it is fetched off the request (``search/retrieval/query_translation.py``). Past the budget, or
  when the model fails, the extractive answer is shown with one notice naming
  the reason (``FALLBACK_NOTICES``); a ``no_answer`` never carries one.
- ``no_answer`` is an explicit state, worded in the question's language.

Answers are cached under a key made of the question and the exact passages
(chunk id + content hash) this user's retrieval returned, so a cached answer
can only ever be built from passages the asker may read right now.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connections
from django.utils.translation import gettext, gettext_lazy

from config.numbers import ASK_LOG_NOTICE_CHARS, RAW_QUESTION_FACTOR
from config.numbers import ASK_MAX_QUESTION_CHARS as MAX_QUESTION_CHARS
from core.llm import (
    LLMError,
    LLMRateLimited,
    LLMTimeout,
    LLMUnavailable,
    chat_json,
    chat_stream,
    llm_configured,
)
from core.llm import prepare as prepare_llm
from core.ratelimit import allow
from core.text import detect_language
from search.ask import prompts
from search.ask.answer_cache import cache_key, from_cache, mark_outdated, to_cache
from search.ask.extractive import candidates, decide
from search.ask.grounding import MARKER, UnsupportedAnswer, grounded, with_confidence
from search.ask.passages import Passage, embedder_for, passages_for
from search.ask.quoted import extractive_answer, learnt, quoted_answer
from search.ask.replies import Answer, AskError, no_answer
from search.ask.stream_gate import gate_for
from search.decisions.answer import answer_decision
from search.decisions.policy import Decision
from search.models import AskLog
from search.retrieval import parallel
from search.retrieval.hits import Retrieval
from search.retrieval.query import ParsedQuery, QueryError, clean_query, parse_query
from search.retrieval.query_translation import request_translations
from search.verified.services import verified_for_asker

logger = logging.getLogger(__name__)
TOO_LONG = gettext_lazy("Your question is too long (%(length)d characters); the limit is %(limit)d.")


# Why a question that had an LLM got the extractive answer: one reason, one message (UI language).
FALLBACK_NOTICES = {
    "unavailable": gettext_lazy(
        "The language model is unavailable right now; these sentences are quoted from the handbook."
    ),
    "timed_out": gettext_lazy(
        "The language model did not answer in time; these sentences are quoted from the handbook."
    ),
    "wrong_shape": gettext_lazy(
        "The language model's reply could not be read; these sentences are quoted from the handbook."
    ),
    "no_citation": gettext_lazy("The generated answer did not cite its sources; these sentences are quoted instead."),
    "unsupported": gettext_lazy(
        "The generated answer said things its sources do not; these sentences are quoted instead."
    ),
    "rate_limited": gettext_lazy(
        "The limit on language-model answers for this minute is reached; these sentences are quoted from the handbook."
    ),
}


def validate_question(question: str) -> str:
    try:
        text = clean_query(question[: MAX_QUESTION_CHARS * RAW_QUESTION_FACTOR] if question else "")
    except QueryError:
        text = question or ""
    if not text.strip():
        raise AskError(gettext("Please type a question."))
    if len(text) > MAX_QUESTION_CHARS:
        raise AskError(TOO_LONG % {"length": len(text), "limit": MAX_QUESTION_CHARS})
    return text


def _fallback_reason(exc: LLMError) -> str:
    if isinstance(exc, LLMRateLimited):
        return "rate_limited"
    if isinstance(exc, LLMTimeout):
        return "timed_out"
    if isinstance(exc, LLMUnavailable):
        return "unavailable"
    if isinstance(exc, UnsupportedAnswer):
        return "unsupported"
    return "wrong_shape"


def _fallback(
    question: str, language: str, passages: list[Passage], reason: str, prepared: Answer | None = None
) -> Answer:
    """The extractive answer (``prepared`` or made now) in place of the model's, saying why;
    a no_answer says only that."""
    answer = prepared if prepared is not None else extractive_answer(question, language, passages)
    if answer.mode != "no_answer":
        answer.fallback = reason
        answer.notice = str(FALLBACK_NOTICES[reason])
    return answer


def llm_answer(
    question: str,
    language: str,
    passages: list[Passage],
    *,
    user_id: int | None = None,
    deadline: float | None = None,
    prepared: _PreparedFallback | None = None,
) -> Answer:
    """The model's checked answer; by ``deadline`` (``time.monotonic()``) or the extractive one
    (``prepared`` meanwhile, if given)."""
    if not passages:
        return no_answer(question, language)
    try:
        reply = chat_json(
            prompts.answer_messages(question, language, passages), purpose="answer", user_id=user_id, deadline=deadline
        )
        answer = grounded(reply, passages, question, language)
    except LLMError as exc:
        reason = _fallback_reason(exc)
        logger.warning("LLM answer not used (%s), falling back to extractive: %s", reason, exc)
        return _fallback(question, language, passages, reason, prepared.get() if prepared else None)
    if answer is None:
        return _fallback(question, language, passages, "no_citation", prepared.get() if prepared else None)
    return with_confidence(answer, passages, question, language)


def _log(user: Any, answer: Answer, started: float, passages: list[Passage] | None = None) -> None:
    # The spaces the retrieved passages came from, best first (ids only): where an unanswered
    # question nearly found its answer, for those spaces' editors (the Insights page).
    spaces = list(dict.fromkeys(p.space_id for p in passages or () if p.space_id))
    log = AskLog.objects.create(
        user=user if getattr(user, "is_authenticated", False) else None,
        question=answer.question[:MAX_QUESTION_CHARS],
        language=answer.language,
        mode=answer.mode,
        answer=answer.text,
        citations=[
            {"ref": c.ref, "anchor": c.anchor, "revision": c.revision, "quote": c.quote} for c in answer.citations
        ],
        passage_spaces=spaces,
        passage_pages=list(dict.fromkeys(p.page_id for p in passages or ())),
        notice=answer.notice[:ASK_LOG_NOTICE_CHARS],
        cached=answer.cached,
        latency_ms=int((time.monotonic() - started) * 1000),
    )
    answer.log_id = log.pk


def check_rate_limit(user: Any) -> None:
    if not allow(f"ask:{getattr(user, 'pk', 'anon')}", settings.ASK_RATE_LIMIT):
        raise AskError(gettext("You are asking questions too quickly; please wait a minute and try again."))


def _uses_llm(use_llm: bool) -> bool:
    return use_llm and llm_configured()


def _request_translations(question: str, user: Any) -> None:
    """The model's translation of the question, fetched off the request for the next ask."""
    try:
        request_translations(query=question, user_id=getattr(user, "pk", None))
    except Exception as exc:  # a bonus for next time: never a reason to fail this answer
        logger.warning("query translation not requested: %s", exc)


@dataclass(frozen=True)
class Asked:
    """The question as it will be answered: cleaned, checked, in its language, and who asks."""

    text: str
    language: str
    user: Any
    query: ParsedQuery | str  # parsed once, for retrieval; the text when it does not parse


@dataclass(frozen=True)
class Found:
    """What retrieval found for the asker: the passages they may read, and the question's meaning."""

    passages: list[Passage]
    retrieval: Retrieval  # its question vector and embedder: the verified-answer lookup compares by them
    embedder: Any  # the serving embedder when the passages carry the question's meaning; None: words only
    vector: list[float] | None  # the question's vector the units are compared with; None: words decide
    decision: Decision | None  # the embedder's fitted answer decision; None: no embedder or no policy yet

    @property
    def meaning(self) -> tuple[list[float] | None, Any, Decision | None]:
        """The question's vector, the embedder that compares the units with it and its answer decision;
        (None, None, None): words decide."""
        return (self.vector, self.embedder, self.decision) if self.vector is not None else (None, None, None)


def parse(question: str, user: Any, *, rate_limit: bool = True) -> Asked:
    """The question as asked (``AskError`` for the asker when it cannot be answered as asked)."""
    text = validate_question(question)
    if rate_limit:
        check_rate_limit(user)
    try:
        query: ParsedQuery | str = parse_query(text)
    except QueryError:
        query = text  # retrieval says why, as it would for a search
    return Asked(text, detect_language(text), user, query)


def find(asked: Asked) -> Found:
    """The passages through the one permission-filtered retrieval; which model serves is read once, by it."""
    retrieval, passages = passages_for(asked.query, asked.user, language=asked.language)
    embedder = embedder_for(passages, retrieval.embedder)
    # Every passage carries retrieval's vector of the question (search/ask/passages.py): not embedded again.
    if embedder is None:
        return Found(passages, retrieval, None, None, None)
    return Found(passages, retrieval, embedder, retrieval.query_vector, answer_decision(embedder.model_name))


def answer_question(
    *,
    user: Any,
    question: str,
    log: bool = True,
    rate_limit: bool = True,
    use_cache: bool = True,
    use_llm: bool = True,
    with_extras: bool = True,
) -> Answer:
    """The answer to ``question`` for ``user``. ``use_llm=False``: quotes only (search as you type).
    ``with_extras=False``: the answer alone, for callers that compare answers (the impact preview):
    no verified answer looked up beside it, no "source updated since" marks on its citations."""
    started = time.monotonic()
    asked = parse(question, user, rate_limit=rate_limit)
    found = find(asked)
    mode = "llm" if _uses_llm(use_llm) else "extractive"
    owner = getattr(user, "pk", None)
    key = cache_key(asked.text, found.passages, mode, owner, decision=found.decision) if use_cache else ""
    answer = from_cache(key) if use_cache else None
    if answer is not None:
        answer.cached = True
    elif mode == "llm":
        answer = _model_answer(asked, found)
    else:
        model = found.embedder.model_name if found.embedder is not None else None
        units = candidates(asked.text, asked.language, found.passages, model) if found.passages else []
        reorder = learnt(found.meaning[1], user)  # the order learnt from verified answers
        selection = decide(asked.query, asked.language, found.passages, units, *found.meaning, reorder)
        answer = quoted_answer(asked.text, asked.language, selection)
    if use_cache and not answer.cached and not answer.fallback:  # don't pin a fallback answer for an hour
        to_cache(key, answer)
    if with_extras:  # the verified answer is the asker's own: looked up beside the answer, never cached
        retrieval = found.retrieval
        meaning = (retrieval.query_vector, retrieval.embedder)
        answer.verified = verified_for_asker(user, asked.text, *meaning, remember=log, passages=found.passages)
        mark_outdated(answer)
    if log:
        _log(user, answer, started, found.passages)
    return answer


def _model_answer(asked: Asked, found: Found) -> Answer:
    """The model's checked answer within its budget, the quotes prepared meanwhile as its fallback."""
    _request_translations(asked.text, asked.user)
    prepare_llm()
    deadline = time.monotonic() + settings.ASK_LLM_BUDGET_S
    question, language, passages = asked.text, asked.language, found.passages
    prepared = _PreparedFallback(question, language, passages, asked.user) if passages else None
    user_id = getattr(asked.user, "pk", None)
    return llm_answer(question, language, passages, user_id=user_id, deadline=deadline, prepared=prepared)


def stream_answer(*, user: Any, question: str, use_llm: bool = True) -> Iterator[dict[str, Any]]:
    """Events for the browser: text deltas while the model writes, then the checked answer.

    Once asked, the model must start writing within ``ASK_LLM_FIRST_TOKEN_S`` and finish
    within ``ASK_LLM_BUDGET_S``; otherwise the extractive answer is the "done" event, sent as
    soon as that is decided.
    """
    started = time.monotonic()
    try:
        asked = parse(question, user)
    except AskError as exc:
        yield {"type": "error", "message": str(exc)}
        return
    found = find(asked)
    question, language, passages, retrieval = asked.text, asked.language, found.passages, found.retrieval
    verified = verified_for_asker(user, question, retrieval.query_vector, retrieval.embedder, passages=passages)
    if verified is not None:  # shown while the model writes
        yield {"type": "verified", "verified": verified}
    if not _uses_llm(use_llm) or not passages:
        answer = (
            extractive_answer(question, language, passages, reader=user, embedder=found.embedder)
            if passages
            else no_answer(question, language)
        )
    else:
        _request_translations(question, user)
        prepare_llm()
        asked_at = time.monotonic()
        deadline = asked_at + settings.ASK_LLM_BUDGET_S
        first_token_by = min(deadline, asked_at + settings.ASK_LLM_FIRST_TOKEN_S)
        pieces: list[str] = []
        prepared: _PreparedFallback | None = None
        try:
            deltas = chat_stream(
                prompts.stream_messages(question, language, passages),
                purpose="answer",
                user_id=getattr(user, "pk", None),
                first_token_by=first_token_by,
                deadline=deadline,
            )
            prepared = _PreparedFallback(question, language, passages, user)
            gate = gate_for(passages, question)  # no unchecked figure is shown while the model writes
            for delta in deltas:
                pieces.append(delta)
                shown = gate.feed(delta)
                if shown:
                    yield {"type": "delta", "text": shown}
            rest = gate.flush()
            if rest:
                yield {"type": "delta", "text": rest}
            answer = _grounded_stream("".join(pieces), passages, question, language, prepared)
        except LLMError as exc:
            reason = _fallback_reason(exc)
            logger.warning("LLM stream not used (%s), falling back to extractive: %s", reason, exc)
            answer = _fallback(question, language, passages, reason, prepared.get() if prepared else None)
    answer.verified = verified
    mark_outdated(answer)
    _log(user, answer, started, passages)
    yield {"type": "done", "answer": answer}


class _PreparedFallback:
    """The extractive answer, made in a thread while the model is asked: when the model is late
    or wrong, the reader gets the quotes the moment that is decided (not a sentence check later),
    and a streamed answer's first words are not held back meanwhile. Inside a transaction (tests,
    a caller's atomic block) another connection would not see its rows: made when needed instead."""

    def __init__(self, question: str, language: str, passages: list[Passage], reader: Any = None) -> None:
        self._done = threading.Event()
        self._answer: Answer | None = None
        self._asked = (question, language, passages, reader)
        if not parallel.enabled():
            self._done.set()
            return
        args = (question, language, passages, reader)
        threading.Thread(target=self._make, args=args, name="ask-fallback", daemon=True).start()

    def _make(self, question: str, language: str, passages: list[Passage], reader: Any) -> None:
        try:
            self._answer = extractive_answer(question, language, passages, reader=reader)
        except Exception as exc:  # made again in the request if it is needed
            logger.warning("extractive fallback not prepared: %s", exc)
        finally:
            connections.close_all()  # this thread's own connection
            self._done.set()

    def get(self) -> Answer:
        self._done.wait()
        if self._answer is None:  # not made in the thread: made here, for the same reader
            question, language, passages, reader = self._asked
            self._answer = extractive_answer(question, language, passages, reader=reader)
        return self._answer


def _grounded_stream(
    text: str, passages: list[Passage], question: str, language: str, prepared: _PreparedFallback | None = None
) -> Answer:
    text = text.strip()
    if not text or text.upper().startswith(prompts.NO_ANSWER_TOKEN):
        return no_answer(question, language)
    numbers = sorted({int(m) for m in MARKER.findall(text)})
    answer = grounded({"answer": text, "sources": numbers}, passages, question, language)
    if answer is None:
        return _fallback(question, language, passages, "no_citation", prepared.get() if prepared else None)
    return with_confidence(answer, passages, question, language)
