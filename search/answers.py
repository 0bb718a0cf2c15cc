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
  it is fetched off the request (``search/translation.py``). Past the budget, or
  when the model fails, the extractive answer is shown with one notice naming
  the reason (``FALLBACK_NOTICES``); a ``no_answer`` never carries one.
- ``no_answer`` is an explicit state, worded in the question's language.

Answers are cached under a key made of the question and the exact passages
(chunk id + content hash) this user's retrieval returned, so a cached answer
can only ever be built from passages the asker may read right now.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import connections
from django.utils.translation import gettext_lazy

from search import parallel, prompts
from search.embedding_cache import query_embedding
from search.embedding_switch import query_embedder
from search.extractive_answer import select_quotes
from search.llm import (
    LLMError,
    LLMRateLimited,
    LLMTimeout,
    LLMUnavailable,
    chat_json,
    chat_stream,
    llm_configured,
)
from search.llm import prepare as prepare_llm
from search.passages import Passage, passages_for
from search.query import QueryError, clean_query, parse_query
from search.text import detect_language

logger = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 2000
CACHE_TTL_S = 3600
# Bump when answer building changes, so cached answers of the old logic are not served.
ANSWER_FORMAT_VERSION = 4
_MARKER = re.compile(r"\[(\d{1,2})\]")

NO_ANSWER_TEXT = {
    "en": "The handbook doesn't seem to answer this question.",
    "fr": "Le manuel ne semble pas répondre à cette question.",
}
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
        "The generated answer stated a figure its sources do not contain; these sentences are quoted instead."
    ),
    "rate_limited": gettext_lazy(
        "The limit on language-model answers for this minute is reached; these sentences are quoted from the handbook."
    ),
}
LANGUAGE_NAMES = {"en": "English", "fr": "French"}


class AskError(ValueError):
    """The question cannot be answered as asked; the message is for the user."""


class UnsupportedAnswer(LLMError):
    """The model's answer states something its cited passages do not."""


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
                }
                for c in self.citations
            ],
            "language": self.language,
            "notice": self.notice,
            "fallback": self.fallback,
        }


def validate_question(question: str) -> str:
    try:
        text = clean_query(question[: MAX_QUESTION_CHARS * 4] if question else "")
    except QueryError:
        text = question or ""
    if not text.strip():
        raise AskError("Please type a question.")
    if len(text) > MAX_QUESTION_CHARS:
        raise AskError(f"Your question is too long ({len(text)} characters); the limit is {MAX_QUESTION_CHARS}.")
    return text


def _citation(p: Passage, quote: str = "") -> Citation:
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
    return Answer(question, "no_answer", NO_ANSWER_TEXT.get(language, NO_ANSWER_TEXT["en"]), language)


def extractive_answer(question: str, language: str, passages: list[Passage], notice: str = "") -> Answer:
    selection = select_quotes(question, language, passages, *_question_vector(question, passages))
    if not selection.answerable:
        answer = no_answer(question, language)
        answer.notice = notice
        return answer
    quotes = selection.quotes
    parts, citations = [], []
    numbers: dict[int, int] = {}
    for quote in quotes:
        passage = quote.passage
        if passage.number not in numbers:
            numbers[passage.number] = len(citations) + 1
            citations.append(_citation(passage, quote.sentence))
            citations[-1].number = numbers[passage.number]
        label = f"[{numbers[passage.number]}]"
        if passage.language != language:  # say which language a quoted sentence is in
            label = f"({LANGUAGE_NAMES.get(passage.language, passage.language)}) {label}"
        parts.append(f"“{quote.sentence}” {label}")
    return Answer(question, "extractive", " ".join(parts), language, citations, notice)


def _question_vector(question: str, passages: list[Passage]) -> tuple[list[float] | None, Any]:
    """The question's vector as retrieval computed it, when the passages came with vectors."""
    if not any(p.vector_distance is not None for p in passages):
        return None, None
    embedder = query_embedder()
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


def _grounded(reply: dict[str, Any], passages: list[Passage], question: str, language: str) -> Answer | None:
    """Validate the model's JSON; None when it isn't a grounded answer."""
    if reply.get("no_answer") is True:
        return no_answer(question, language)
    text = reply.get("answer")
    sources = reply.get("sources", [])
    if not isinstance(text, str) or not isinstance(sources, list):
        raise LLMError("reply has the wrong shape")
    text = text.strip()
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
    for number in {int(m) for m in _MARKER.findall(text)}:
        if number not in by_number:
            logger.warning("LLM answer has marker [%d] for a passage it was not sent", number)
            text = text.replace(f"[{number}]", "")
        elif by_number[number] not in cited:
            cited.append(by_number[number])
    if not text and not cited:
        return no_answer(question, language)
    if not cited or not text:
        return None
    unsupported = _unsupported_figures(text, cited, question)
    if unsupported:
        raise UnsupportedAnswer(f"answer states figures its sources do not contain: {sorted(unsupported)}")
    return Answer(question, "llm", text, language, [_citation(p) for p in sorted(cited, key=lambda p: p.number)])


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
    found = {re.sub(r"\D", "", m) for m in _FIGURE.findall(_MARKER.sub(" ", text))}
    if words:
        found |= {_NUMBER_WORDS[w] for w in re.findall(r"[^\W\d_]+", text.lower()) if w in _NUMBER_WORDS}
    return found


_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)


def _unsupported_figures(text: str, cited: list[Passage], question: str) -> set[str]:
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
        answer = _grounded(reply, passages, question, language)
    except LLMError as exc:
        reason = _fallback_reason(exc)
        logger.warning("LLM answer not used (%s), falling back to extractive: %s", reason, exc)
        return _fallback(question, language, passages, reason, prepared.get() if prepared else None)
    if answer is None:
        return _fallback(question, language, passages, "no_citation", prepared.get() if prepared else None)
    return answer


def _cache_key(question: str, passages: list[Passage], mode: str, owner: Any = None) -> str:
    """Per person (``owner``): a shared entry would answer in milliseconds a question somebody else
    asked recently, and its timing would tell. Per passages: an edited source is a new answer."""
    material = json.dumps(
        [
            ANSWER_FORMAT_VERSION,
            owner,
            question.strip().lower(),
            mode,
            settings.LLM_MODEL if mode == "llm" else "",
            [(p.chunk_id, p.content_hash, p.revision_id) for p in passages],
        ]
    )
    return "ask:" + hashlib.sha256(material.encode()).hexdigest()


def _mark_outdated(answer: Answer) -> None:
    """'Source updated since': the cited revision is no longer the page's published one."""
    from handbook.models import Page

    current = dict(
        Page.objects.filter(ref__in=[c.ref for c in answer.citations]).values_list("ref", "published_revision_id")
    )
    for citation in answer.citations:
        citation.outdated = current.get(citation.ref) != citation.revision_id


def _log(user: Any, answer: Answer, started: float) -> None:
    from search.models import AskLog

    log = AskLog.objects.create(
        user=user if getattr(user, "is_authenticated", False) else None,
        question=answer.question[:MAX_QUESTION_CHARS],
        language=answer.language,
        mode=answer.mode,
        answer=answer.text,
        citations=[{"ref": c.ref, "anchor": c.anchor, "revision": c.revision} for c in answer.citations],
        notice=answer.notice[:300],
        cached=answer.cached,
        latency_ms=int((time.monotonic() - started) * 1000),
    )
    answer.log_id = log.pk


def _from_cache(key: str) -> Answer | None:
    try:
        raw = cache.get(key)
    except Exception:
        return None
    if not raw:
        return None
    data = dict(raw)
    data["citations"] = [Citation(**c) for c in data["citations"]]
    return Answer(**data)


def _to_cache(key: str, answer: Answer) -> None:
    try:
        cache.set(key, asdict(answer) | {"log_id": None, "cached": False}, CACHE_TTL_S)
    except Exception:
        logger.warning("answer cache unavailable")


def check_rate_limit(user: Any) -> None:
    from handbook.ratelimit import allow

    if not allow(f"ask:{getattr(user, 'pk', 'anon')}", settings.ASK_RATE_LIMIT):
        raise AskError("You are asking questions too quickly; please wait a minute and try again.")


def _uses_llm(use_llm: bool) -> bool:
    return use_llm and llm_configured()


def _request_translations(question: str, user: Any) -> None:
    """The model's translation of the question, fetched off the request for the next ask."""
    from search.translation import request_translations

    try:
        request_translations(query=question, user_id=getattr(user, "pk", None))
    except Exception as exc:  # a bonus for next time: never a reason to fail this answer
        logger.warning("query translation not requested: %s", exc)


def answer_question(
    *,
    user: Any,
    question: str,
    log: bool = True,
    rate_limit: bool = True,
    use_cache: bool = True,
    use_llm: bool = True,
) -> Answer:
    """The answer to ``question`` for ``user``. ``use_llm=False``: quotes only (search as you type)."""
    started = time.monotonic()
    question = validate_question(question)
    if rate_limit:
        check_rate_limit(user)
    language = detect_language(question)
    _retrieval, passages = passages_for(question, user)
    mode = "llm" if _uses_llm(use_llm) else "extractive"
    key = _cache_key(question, passages, mode, getattr(user, "pk", None))
    answer = _from_cache(key) if use_cache else None
    if answer is not None:
        answer.cached = True
    else:
        if mode == "llm":
            _request_translations(question, user)
            prepare_llm()
            deadline = time.monotonic() + settings.ASK_LLM_BUDGET_S
            prepared = _PreparedFallback(question, language, passages) if passages else None
            user_id = getattr(user, "pk", None)
            answer = llm_answer(question, language, passages, user_id=user_id, deadline=deadline, prepared=prepared)
        else:
            answer = extractive_answer(question, language, passages)
        if use_cache and not answer.fallback:  # don't pin a fallback answer for an hour
            _to_cache(key, answer)
    _mark_outdated(answer)
    if log:
        _log(user, answer, started)
    return answer


def stream_answer(*, user: Any, question: str, use_llm: bool = True) -> Iterator[dict[str, Any]]:
    """Events for the browser: text deltas while the model writes, then the checked answer.

    Once asked, the model must start writing within ``ASK_LLM_FIRST_TOKEN_S`` and finish
    within ``ASK_LLM_BUDGET_S``; otherwise the extractive answer is the "done" event, sent as
    soon as that is decided.
    """
    started = time.monotonic()
    try:
        question = validate_question(question)
        check_rate_limit(user)
    except AskError as exc:
        yield {"type": "error", "message": str(exc)}
        return
    language = detect_language(question)
    _retrieval, passages = passages_for(question, user)
    if not _uses_llm(use_llm) or not passages:
        answer = extractive_answer(question, language, passages) if passages else no_answer(question, language)
    else:
        _request_translations(question, user)
        prepare_llm()
        asked = time.monotonic()
        deadline = asked + settings.ASK_LLM_BUDGET_S
        first_token_by = min(deadline, asked + settings.ASK_LLM_FIRST_TOKEN_S)
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
            prepared = _PreparedFallback(question, language, passages)
            for delta in deltas:
                pieces.append(delta)
                yield {"type": "delta", "text": delta}
            answer = _grounded_stream("".join(pieces), passages, question, language, prepared)
        except LLMError as exc:
            reason = _fallback_reason(exc)
            logger.warning("LLM stream not used (%s), falling back to extractive: %s", reason, exc)
            answer = _fallback(question, language, passages, reason, prepared.get() if prepared else None)
    _mark_outdated(answer)
    _log(user, answer, started)
    yield {"type": "done", "answer": answer}


class _PreparedFallback:
    """The extractive answer, made in a thread while the model is asked: when the model is late
    or wrong, the reader gets the quotes the moment that is decided (not a sentence check later),
    and a streamed answer's first words are not held back meanwhile. Inside a transaction (tests,
    a caller's atomic block) another connection would not see its rows: made when needed instead."""

    def __init__(self, question: str, language: str, passages: list[Passage]) -> None:
        self._done = threading.Event()
        self._answer: Answer | None = None
        if not parallel.enabled():
            self._done.set()
            return
        args = (question, language, passages)
        threading.Thread(target=self._make, args=args, name="ask-fallback", daemon=True).start()

    def _make(self, question: str, language: str, passages: list[Passage]) -> None:
        try:
            self._answer = extractive_answer(question, language, passages)
        except Exception as exc:  # made again in the request if it is needed
            logger.warning("extractive fallback not prepared: %s", exc)
        finally:
            connections.close_all()  # this thread's own connection
            self._done.set()

    def get(self) -> Answer | None:
        self._done.wait()
        return self._answer


def _grounded_stream(
    text: str, passages: list[Passage], question: str, language: str, prepared: _PreparedFallback | None = None
) -> Answer:
    text = text.strip()
    if not text or text.upper().startswith(prompts.NO_ANSWER_TOKEN):
        return no_answer(question, language)
    numbers = sorted({int(m) for m in _MARKER.findall(text)})
    answer = _grounded({"answer": text, "sources": numbers}, passages, question, language)
    return answer or _fallback(question, language, passages, "no_citation", prepared.get() if prepared else None)
