"""The one OpenAI-compatible chat client (answers, query translations, summaries).

Works with any server that speaks chat completions (OpenAI, vLLM, Ollama,
llama.cpp). Temperature 0, bounded timeouts and retries, JSON replies parsed
and validated here; callers get a dict or an ``LLMError``.

Two bounds hold whatever the provider does:

- time: a call given a ``deadline`` (``time.monotonic()``) returns or raises
  ``LLMTimeout`` by then, even when the provider accepts the connection and never
  answers (the HTTP call runs in a helper thread that is left to its own, shorter
  than usual, timeout);
- cost: every call is counted in Redis before it is sent (``reserve_call``): per
  user and for the whole site (answers, translations), summaries on their own
  budget so a bulk import cannot use up what interactive Ask needs.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator
from functools import lru_cache, partial
from typing import Any, TypeVar

from django.conf import settings
from pydantic import BaseModel, ValidationError
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_before_delay,
    wait_exponential,
)

from core.ratelimit import allow

logger = logging.getLogger(__name__)


class LLMError(RuntimeError):
    """The provider failed or replied with something unusable."""


class LLMUnavailable(LLMError):
    """The provider could not be reached or kept failing (timeouts, 5xx, 429)."""


class LLMTimeout(LLMUnavailable):
    """The caller's time budget ran out before the provider answered."""


class LLMRateLimited(LLMUnavailable):
    """A limit on LLM calls per minute was reached: nothing was sent."""


class _MalformedReply(LLMError):
    """The model answered, but not with a JSON object: worth asking again."""


T = TypeVar("T")
Reply = TypeVar("Reply", bound=BaseModel)

# Which budget each kind of call draws on: interactive calls share the site-wide limit and the
# asker's own; summaries (bulk imports, sweeps) have theirs, so they never starve Ask.
PURPOSES = ("answer", "translation", "summary")


def llm_configured() -> bool:
    return bool(settings.LLM_BASE_URL and settings.LLM_MODEL)


@lru_cache(maxsize=4)
def _client(base_url: str, api_key: str, timeout: float, max_retries: int):
    from openai import OpenAI  # lazy: openai is slow to import and only LLM calls need it

    # The openai client retries 408/409/429/5xx and connection errors with backoff.
    return OpenAI(base_url=base_url, api_key=api_key or "unused", timeout=timeout, max_retries=max_retries)


def client():
    return _client(settings.LLM_BASE_URL, settings.LLM_API_KEY, settings.LLM_TIMEOUT_S, settings.LLM_MAX_RETRIES)


def prepare() -> None:
    """Build the client (HTTP pool, TLS context: up to seconds on a busy machine) before a time
    budget starts: it is this process's one-off set-up, not the model's time."""
    client()


def _parse_json_object(content: str) -> dict[str, Any]:
    # From the first brace to the last: some servers wrap JSON in a fence or a sentence despite being
    # asked not to.
    text = content.strip()
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise _MalformedReply("reply is not a JSON object")
    try:
        value = json.loads(text[start : end + 1])
    except json.JSONDecodeError as exc:
        raise _MalformedReply(f"reply is not valid JSON: {exc.msg}") from exc
    if not isinstance(value, dict):
        raise _MalformedReply("reply is not a JSON object")
    return value


def reserve_call(purpose: str, user_id: int | None = None) -> None:
    """Count one call against the limits of ``purpose``; ``LLMRateLimited`` once one is reached.

    Fixed windows counted in the shared cache (``core.ratelimit``), so every web
    process and worker agrees. The asker's own limit is checked first: a user at their
    limit does not use up the site's.
    """
    if purpose not in PURPOSES:
        raise ValueError(f"unknown LLM call purpose {purpose!r}")
    if purpose == "summary":
        limits = [("llm:summary", settings.LLM_SUMMARY_RATE_LIMIT, "summaries")]
    else:
        limits = [("llm:global", settings.LLM_GLOBAL_RATE_LIMIT, "the whole site")]
        if user_id is not None:
            limits.insert(0, (f"llm:user:{user_id}", settings.LLM_USER_RATE_LIMIT, "this user"))
    for key, rate, whose in limits:
        if not allow(key, rate):
            raise LLMRateLimited(f"LLM call limit for {whose} reached ({rate})")


def _call_timeout(deadline: float | None) -> float:
    """The HTTP timeout of a call: the configured one, cut to what is left of the budget."""
    if deadline is None:
        return settings.LLM_TIMEOUT_S
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise LLMTimeout("LLM time budget spent before the call")
    # A little slack: the caller stops waiting at the deadline; the thread ends soon after.
    return min(settings.LLM_TIMEOUT_S, remaining + 1.0)


def _by_deadline(call: Callable[[], T], deadline: float | None) -> T:
    """``call()``, given up at ``deadline``: the HTTP client's timeouts bound each read, not the
    whole call (a server that trickles bytes, or retries with backoff, can outlast them)."""
    if deadline is None:
        return call()
    outcome: dict[str, Any] = {}
    finished = threading.Event()

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as exc:  # handed to the waiting caller
            outcome["error"] = exc
        finally:
            finished.set()

    threading.Thread(target=run, name="llm-call", daemon=True).start()
    if not finished.wait(max(0.0, deadline - time.monotonic())):
        raise LLMTimeout("LLM did not answer within the time budget")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def provider_error(exc: Exception) -> LLMError:
    """Map an openai client error: unreachable or overloaded providers are retryable."""
    import openai  # lazy: openai is slow to import and only LLM calls need it

    if isinstance(exc, openai.APITimeoutError):  # before its parent class, APIConnectionError
        return LLMTimeout(f"LLM provider unavailable: no answer in time ({exc.__class__.__name__})")
    transient = (openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)
    if isinstance(exc, transient):
        return LLMUnavailable(f"LLM provider unavailable: {exc.__class__.__name__}")
    return LLMError(f"LLM provider error: {exc.__class__.__name__}: {exc}")


def _create(
    request: dict[str, Any], *, purpose: str, user_id: int | None, deadline: float | None, max_retries: int | None
) -> Any:
    """One chat completion, counted before it is sent.

    Without a deadline the client retries 429/5xx/connection errors itself. With one, retries
    happen here, each counted, and only while the deadline leaves room for the pause: never
    after a timeout (the provider is slow, not flaky), and nothing keeps calling once the caller
    has given up (the client would retry a timed-out call in the abandoned thread).
    """
    import openai  # lazy: openai is slow to import and only LLM calls need it

    if deadline is None:
        reserve_call(purpose, user_id)
        api = client() if max_retries is None else client().with_options(max_retries=max_retries)
        try:
            return api.chat.completions.create(**request)
        except openai.OpenAIError as exc:
            raise provider_error(exc) from exc
    retries = settings.LLM_MAX_RETRIES if max_retries is None else max_retries

    def attempt() -> Any:
        api = client().with_options(timeout=_call_timeout(deadline), max_retries=0)  # LLMTimeout when spent
        reserve_call(purpose, user_id)
        try:
            return _by_deadline(partial(api.chat.completions.create, **request), deadline)
        except openai.OpenAIError as exc:
            raise provider_error(exc) from exc

    retrying = Retrying(
        retry=retry_if_exception(_is_transient),
        # 0.5, 1, 2, 4, 8, 8 ... s
        wait=wait_exponential(multiplier=0.5, exp_base=2, max=8.0),
        # No pause that would reach the deadline: the caller has given up by then, and nothing
        # should keep calling on its behalf.
        stop=stop_after_attempt(retries + 1) | stop_before_delay(deadline - time.monotonic()),
        before_sleep=_log_retry,
        reraise=True,  # the provider's error as mapped, not tenacity's RetryError
    )
    return retrying(attempt)


def _is_transient(exc: BaseException) -> bool:
    """Worth another call: the provider was unreachable or overloaded. Not a timeout (the provider
    is slow, not flaky), not our own call limit (nothing was sent), not a refused request."""
    return isinstance(exc, LLMUnavailable) and not isinstance(exc, (LLMTimeout, LLMRateLimited))


def _log_retry(retry_state: RetryCallState) -> None:
    error = retry_state.outcome.exception() if retry_state.outcome else None
    logger.info("LLM call failed (%s); retrying in %.1f s", error, retry_state.upcoming_sleep)


def chat_json(
    messages: list[dict[str, str]],
    *,
    purpose: str,
    user_id: int | None = None,
    attempts: int = 2,
    max_tokens: int = 800,
    deadline: float | None = None,
    max_retries: int | None = None,
) -> dict[str, Any]:
    """One JSON object from the model; malformed replies are retried ``attempts`` times.

    Every call is counted against the limits of ``purpose``; with a ``deadline``
    (``time.monotonic()``) all of them share it. ``max_retries``: retries on 429/5xx and
    connection errors (default ``LLM_MAX_RETRIES``).
    """
    request = {
        "model": settings.LLM_MODEL,
        "messages": messages,
        "temperature": 0,
        "max_tokens": max_tokens,
        "response_format": {"type": "json_object"},
    }

    # Only malformed replies are asked again here; the provider's failures were retried, where
    # they could be, by _create and end the question.
    attempt = 0
    while True:
        attempt += 1
        response = _create(request, purpose=purpose, user_id=user_id, deadline=deadline, max_retries=max_retries)
        content = (response.choices[0].message.content or "") if response.choices else ""
        try:
            return _parse_json_object(content)
        except _MalformedReply as exc:
            logger.warning("LLM reply malformed (attempt %d/%d): %s", attempt, attempts, exc)
            if attempt >= attempts:
                raise LLMError(str(exc)) from None


def parse_reply(model: type[Reply], reply: Any, what: str = "reply") -> Reply:
    """``reply`` read as the pydantic ``model`` its caller asked for; a reply of another shape is an
    ``LLMError`` ("wrong shape"), and the caller falls back rather than showing it."""
    try:
        return model.model_validate(reply)
    except ValidationError as exc:
        fields = ", ".join(sorted({str(error["loc"][0]) for error in exc.errors() if error["loc"]})) or "its type"
        raise LLMError(f"{what} has the wrong shape ({fields})") from None


def chat_stream(
    messages: list[dict[str, str]],
    *,
    purpose: str,
    user_id: int | None = None,
    max_tokens: int = 800,
    first_token_by: float | None = None,
    deadline: float | None = None,
) -> Iterator[str]:
    """Text deltas as the model writes them; logs time to first token.

    The call is counted and started at once (before the first ``next()``), so the caller
    can prepare a fallback meanwhile. ``LLMTimeout`` is raised when no text has come by
    ``first_token_by``, or the reply is not finished by ``deadline`` (``time.monotonic()``).
    """
    timeout = _call_timeout(deadline)  # LLMTimeout when the budget is already spent
    reserve_call(purpose, user_id)
    events: queue.Queue[tuple[str, Any]] = queue.Queue()
    stop = threading.Event()
    started = time.monotonic()

    def produce() -> None:
        import openai  # lazy: openai is slow to import and only LLM calls need it

        try:
            # No client retries: a retry would outlive the reader's wait, uncounted.
            stream = (
                client()
                .with_options(timeout=timeout, max_retries=0)
                .chat.completions.create(
                    model=settings.LLM_MODEL,
                    messages=messages,
                    temperature=0,
                    max_tokens=max_tokens,
                    stream=True,
                )
            )
            try:
                for event in stream:
                    if stop.is_set():
                        break
                    delta = (event.choices[0].delta.content or "") if event.choices else ""
                    if delta:
                        events.put(("delta", delta))
            finally:
                stream.close()
            events.put(("end", None))
        except openai.OpenAIError as exc:
            events.put(("error", provider_error(exc)))
        except Exception as exc:  # the reader must hear of it, whatever it is
            events.put(("error", LLMError(f"LLM stream failed: {exc.__class__.__name__}: {exc}")))

    threading.Thread(target=produce, name="llm-stream", daemon=True).start()
    return _stream_events(events, stop, started, first_token_by, deadline)


def _stream_events(
    events: queue.Queue[tuple[str, Any]],
    stop: threading.Event,
    started: float,
    first_token_by: float | None,
    deadline: float | None,
) -> Iterator[str]:
    first = True
    try:
        while True:
            limits = [t for t in (deadline, first_token_by if first else None) if t is not None]
            wait = max(0.0, min(limits) - time.monotonic()) if limits else None
            try:  # what is already there is taken, even when the reader comes late
                kind, value = events.get(timeout=wait)
            except queue.Empty:
                raise LLMTimeout(
                    "LLM wrote nothing within the first-token time" if first else "LLM reply outlasted the time budget"
                ) from None
            if kind == "end":
                return
            if kind == "error":
                raise value
            if first:
                logger.info("LLM time to first token: %.0f ms", (time.monotonic() - started) * 1000)
                first = False
            yield value
    finally:
        stop.set()  # the producer closes the HTTP response at its next event
