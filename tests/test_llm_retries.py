"""core/llm.py's retries, against the fake provider on loopback (tests/fake_llm.py): a provider
that fails now and then is called again, each call counted, only while the caller's time budget
leaves room for the pause; a malformed reply is asked again, then given up on."""

from __future__ import annotations

import json
import logging
import time

import pytest
from django.core.cache import cache

from core.llm import LLMError, LLMRateLimited, LLMUnavailable, chat_json
from tests.fake_llm import Reply

MESSAGES = [{"role": "user", "content": "Reply with a JSON object."}]


@pytest.fixture
def provider(fake_llm, settings):  # type: ignore[no-untyped-def]
    cache.clear()  # rate-limit windows of earlier tests
    settings.LLM_MAX_RETRIES = 2
    return fake_llm


def _retry_pauses(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage().rsplit("retrying in ", 1)[1] for r in caplog.records if "retrying in" in r.getMessage()]


def test_a_retryable_error_is_called_again_after_the_scheduled_pauses(provider, caplog):  # type: ignore[no-untyped-def]
    provider.queue(Reply(status=503), Reply(status=429))
    provider.queue_json({"ok": True})
    with caplog.at_level(logging.INFO, logger="core.llm"):
        reply = chat_json(MESSAGES, purpose="summary", deadline=time.monotonic() + 10.0)
    assert reply == {"ok": True}
    assert provider.chat_calls == 3
    assert _retry_pauses(caplog) == ["0.5 s", "1.0 s"]


def test_retries_end_at_max_retries_with_the_providers_error(provider, caplog):  # type: ignore[no-untyped-def]
    provider.queue(Reply(status=503), Reply(status=503))
    with caplog.at_level(logging.INFO, logger="core.llm"), pytest.raises(LLMUnavailable) as raised:
        chat_json(MESSAGES, purpose="summary", deadline=time.monotonic() + 10.0, max_retries=1)
    assert type(raised.value) is LLMUnavailable and "InternalServerError" in str(raised.value)
    assert provider.chat_calls == 2
    assert _retry_pauses(caplog) == ["0.5 s"]


def test_no_retry_when_the_pause_would_reach_the_deadline(provider, caplog):  # type: ignore[no-untyped-def]
    provider.queue(Reply(status=503))
    provider.queue_json({"ok": True})
    with caplog.at_level(logging.INFO, logger="core.llm"), pytest.raises(LLMUnavailable):
        chat_json(MESSAGES, purpose="summary", deadline=time.monotonic() + 0.4)  # the first pause is 0.5 s
    assert provider.chat_calls == 1 and not _retry_pauses(caplog)


def test_a_refused_request_is_not_retried(provider):  # type: ignore[no-untyped-def]
    provider.queue(Reply(status=400))
    with pytest.raises(LLMError) as raised:
        chat_json(MESSAGES, purpose="summary", deadline=time.monotonic() + 10.0)
    assert not isinstance(raised.value, LLMUnavailable)
    assert provider.chat_calls == 1


def test_each_retry_is_counted_against_the_limit(provider, settings):  # type: ignore[no-untyped-def]
    settings.LLM_SUMMARY_RATE_LIMIT = "1/m"
    provider.queue(Reply(status=503))
    with pytest.raises(LLMRateLimited):
        chat_json(MESSAGES, purpose="summary", deadline=time.monotonic() + 10.0)
    assert provider.chat_calls == 1  # the retry was refused by the limit before it was sent


def test_a_malformed_reply_is_asked_again(provider, caplog):  # type: ignore[no-untyped-def]
    provider.queue(Reply(content="Sure! Here it is."))
    provider.queue_json({"ok": True})
    with caplog.at_level(logging.WARNING, logger="core.llm"):
        assert chat_json(MESSAGES, purpose="summary") == {"ok": True}
    assert provider.chat_calls == 2
    assert [r.getMessage() for r in caplog.records] == ["LLM reply malformed (attempt 1/2): reply is not a JSON object"]


def test_malformed_replies_are_given_up_on_after_the_attempts(provider, caplog):  # type: ignore[no-untyped-def]
    provider.queue(Reply(content="no"), Reply(content=json.dumps([1, 2])), Reply(content="{not json}"))
    with caplog.at_level(logging.WARNING, logger="core.llm"), pytest.raises(LLMError) as raised:
        chat_json(MESSAGES, purpose="summary", attempts=3)
    assert type(raised.value) is LLMError and str(raised.value).startswith("reply is not valid JSON")
    assert provider.chat_calls == 3
    assert [r.getMessage().split(":")[0] for r in caplog.records] == [
        f"LLM reply malformed (attempt {n}/3)" for n in (1, 2, 3)
    ]


def test_a_reply_wrapped_in_a_fence_or_a_sentence_is_read(provider):  # type: ignore[no-untyped-def]
    provider.queue(Reply(content='```json\n{"ok": true}\n```'), Reply(content='Here: {"ok": {"nested": 1}}. Done.'))
    assert chat_json(MESSAGES, purpose="summary") == {"ok": True}
    assert chat_json(MESSAGES, purpose="summary") == {"ok": {"nested": 1}}
    assert provider.chat_calls == 2  # neither was asked again
