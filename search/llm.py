"""The one OpenAI-compatible chat client (answers and summaries).

Works with any server that speaks chat completions (OpenAI, vLLM, Ollama,
llama.cpp). Temperature 0, bounded timeouts and retries, JSON replies parsed
and validated here; callers get a dict or an ``LLMError``.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from django.conf import settings

logger = logging.getLogger(__name__)


class LLMError(RuntimeError):
    """The provider failed or replied with something unusable."""


class LLMUnavailable(LLMError):
    """The provider could not be reached or kept failing (timeouts, 5xx, 429)."""


def llm_configured() -> bool:
    return bool(settings.LLM_BASE_URL and settings.LLM_MODEL)


@lru_cache(maxsize=4)
def _client(base_url: str, api_key: str, timeout: float, max_retries: int):  # type: ignore[no-untyped-def]
    from openai import OpenAI

    # The openai client retries 408/409/429/5xx and connection errors with backoff.
    return OpenAI(base_url=base_url, api_key=api_key or "unused", timeout=timeout, max_retries=max_retries)


def client():  # type: ignore[no-untyped-def]
    return _client(settings.LLM_BASE_URL, settings.LLM_API_KEY, settings.LLM_TIMEOUT_S, settings.LLM_MAX_RETRIES)


def _parse_json_object(content: str) -> dict[str, Any]:
    text = content.strip()
    if text.startswith("```"):  # some servers wrap JSON in a fence despite being asked not to
        text = text.strip("`")
        text = text[text.find("{") :] if "{" in text else text
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise LLMError("reply is not a JSON object")
    try:
        value = json.loads(text[start : end + 1])
    except json.JSONDecodeError as exc:
        raise LLMError(f"reply is not valid JSON: {exc.msg}") from exc
    if not isinstance(value, dict):
        raise LLMError("reply is not a JSON object")
    return value


def provider_error(exc: Exception) -> LLMError:
    """Map an openai client error: unreachable or overloaded providers are retryable."""
    import openai

    transient = (openai.APIConnectionError, openai.APITimeoutError, openai.RateLimitError, openai.InternalServerError)
    if isinstance(exc, transient):
        return LLMUnavailable(f"LLM provider unavailable: {exc.__class__.__name__}")
    return LLMError(f"LLM provider error: {exc.__class__.__name__}: {exc}")


def chat_json(
    messages: list[dict[str, str]], *, attempts: int = 2, max_tokens: int = 800, timeout: float | None = None
) -> dict[str, Any]:
    """One JSON object from the model; malformed replies are retried ``attempts`` times."""
    import openai

    last_error: Exception | None = None
    for attempt in range(1, attempts + 1):
        try:
            response = (
                client().with_options(timeout=timeout, max_retries=0) if timeout else client()
            ).chat.completions.create(
                model=settings.LLM_MODEL,
                messages=messages,  # type: ignore[arg-type]
                temperature=0,
                max_tokens=max_tokens,
                response_format={"type": "json_object"},
            )
        except openai.OpenAIError as exc:
            raise provider_error(exc) from exc
        content = (response.choices[0].message.content or "") if response.choices else ""
        try:
            return _parse_json_object(content)
        except LLMError as exc:
            last_error = exc
            logger.warning("LLM reply malformed (attempt %d/%d): %s", attempt, attempts, exc)
    raise LLMError(str(last_error))


def chat_stream(messages: list[dict[str, str]], *, max_tokens: int = 800) -> Iterator[str]:
    """Yield text deltas as the model writes them; logs time to first token."""
    import openai

    started = time.monotonic()
    first = True
    try:
        stream = client().chat.completions.create(
            model=settings.LLM_MODEL,
            messages=messages,  # type: ignore[arg-type]
            temperature=0,
            max_tokens=max_tokens,
            stream=True,
        )
        for event in stream:
            if not event.choices:
                continue
            delta = event.choices[0].delta.content or ""
            if delta:
                if first:
                    logger.info("LLM time to first token: %.0f ms", (time.monotonic() - started) * 1000)
                    first = False
                yield delta
    except openai.OpenAIError as exc:
        raise provider_error(exc) from exc
