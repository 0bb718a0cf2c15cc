"""Ask and search with a slow, hanging or junk LLM: time budget, honest notices, bounded costs.

Every test drives the real ``openai`` client against the fake provider on loopback
(tests/fake_llm.py): its slow, hang and junk modes behave like a provider that is
overloaded, stuck, or a small model replying nonsense.
"""

from __future__ import annotations

import json
import time

import pytest
from django.core.cache import cache
from django.utils import translation

from core.llm import LLMRateLimited
from search.ask.answers import FALLBACK_NOTICES, answer_question, stream_answer
from tests.fake_llm import Reply

LEAVE = """# Annual leave

Every employee is entitled to 25 working days of paid annual leave per year.

## Carry over

Up to five unused days may be carried over until 31 March.
"""
QUESTION = "How many days of annual leave do I get?"


@pytest.fixture
def handbook(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    cache.clear()  # rate-limit windows and cached answers of earlier tests
    people = make_space("people", viewers=("staff",))
    make_page(people, "Annual leave", LEAVE, ref="leave")
    return {"bob": make_user("bob", "staff"), "carol": make_user("carol", "staff")}


def _answer_reply(payload: dict) -> Reply:  # type: ignore[type-arg]
    """A well-behaved model: a cited answer (JSON or streamed), or a translation."""
    system = payload["messages"][0]["content"]
    if system.startswith("Translate"):
        return Reply(content=json.dumps({"translation": "award leave expiration"}))
    if payload.get("stream"):
        return Reply(stream_chunks=["You get ", "25 working days ", "[1]."])
    return Reply(content=json.dumps({"answer": "You get 25 working days [1].", "sources": [1]}))


@pytest.fixture
def provider(fake_llm, settings):  # type: ignore[no-untyped-def]
    settings.LLM_TIMEOUT_S = 30.0  # the budget, not the client's timeout, must be what bounds Ask
    settings.LLM_MAX_RETRIES = 0
    # Short enough for a test, long enough that retrieval on a busy machine leaves the model some time.
    settings.ASK_LLM_BUDGET_S = 3.0
    settings.ASK_LLM_FIRST_TOKEN_S = 1.5
    fake_llm.respond = _answer_reply
    return fake_llm


@pytest.fixture
def retrieved(monkeypatch):  # type: ignore[no-untyped-def]
    """When each retrieval ended: the LLM's budget starts there (a busy test machine may take
    seconds to retrieve; that is not the model's time)."""
    import search.ask.answers

    ends: list[float] = []
    real = search.ask.answers.passages_for

    def timed(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = real(*args, **kwargs)
        ends.append(time.monotonic())
        return result

    monkeypatch.setattr(search.ask.answers, "passages_for", timed)
    return ends


def _ask(user, question=QUESTION, **kw):  # type: ignore[no-untyped-def]
    return answer_question(user=user, question=question, rate_limit=False, use_cache=False, **kw)


def _warm(user) -> None:  # type: ignore[no-untyped-def]
    """As on a server that has answered before: the LLM client built (its import and TLS set-up
    take seconds on a busy machine) and the extractive answer's sentence vectors cached."""
    from core.llm import prepare

    prepare()
    assert _ask(user, use_llm=False).mode == "extractive"


# --- Ask: one time budget ---------------------------------------------------------------


@pytest.mark.django_db
def test_hanging_provider_gets_the_extractive_answer_within_the_budget(handbook, provider, settings, retrieved):
    """GIVEN a provider that accepts the call and never answers (and a 30 s client timeout)
    WHEN a question is asked THEN the quoted answer comes within the budget + 1 s, saying why."""
    _warm(handbook["bob"])
    provider.hang()
    answer = _ask(handbook["bob"])
    assert time.monotonic() - retrieved[-1] <= settings.ASK_LLM_BUDGET_S + 1.0
    assert answer.mode == "extractive" and "25 working days" in answer.text
    assert answer.fallback == "timed_out" and answer.notice == str(FALLBACK_NOTICES["timed_out"])
    assert provider.chat_calls == 1


@pytest.mark.django_db
def test_stream_shows_the_fallback_when_no_text_comes_in_time(handbook, provider, settings, retrieved):
    _warm(handbook["bob"])
    provider.hang()
    events = list(stream_answer(user=handbook["bob"], question=QUESTION))
    assert [e["type"] for e in events] == ["done"]
    assert time.monotonic() - retrieved[-1] <= settings.ASK_LLM_FIRST_TOKEN_S + 1.0
    assert events[-1]["answer"].fallback == "timed_out"


@pytest.mark.django_db
def test_slow_provider_streams_its_first_words_in_time(handbook, provider, settings, retrieved):
    provider.slow(seconds=1.2, first_token=0.3, hang_rate=0.0)
    first_event_at = None
    events = []
    for event in stream_answer(user=handbook["bob"], question=QUESTION):
        first_event_at = first_event_at or time.monotonic() - retrieved[-1]
        events.append(event)
    assert events[0]["type"] == "delta" and first_event_at <= settings.ASK_LLM_FIRST_TOKEN_S + 0.5
    assert events[-1]["answer"].mode == "llm" and not events[-1]["answer"].notice


@pytest.mark.django_db
def test_stream_that_stalls_past_the_budget_falls_back(handbook, provider, settings, retrieved):
    """Words arrive, then the reply drags on past the budget: the checked fallback replaces them."""
    _warm(handbook["bob"])
    provider.slow(seconds=6.0, first_token=0.1, hang_rate=0.0)
    events = list(stream_answer(user=handbook["bob"], question=QUESTION))
    assert time.monotonic() - retrieved[-1] <= settings.ASK_LLM_BUDGET_S + 1.0
    assert events[0]["type"] == "delta"
    assert events[-1]["answer"].mode == "extractive" and events[-1]["answer"].fallback == "timed_out"


@pytest.mark.django_db
def test_slow_provider_within_the_budget_answers(handbook, provider):
    provider.slow(seconds=0.5, first_token=0.1, hang_rate=0.0)
    answer = _ask(handbook["bob"])
    assert answer.mode == "llm" and answer.text == "You get 25 working days [1]."


# --- Notices: one true thing ----------------------------------------------------------------


@pytest.mark.django_db
def test_junk_replies_each_get_their_own_notice(handbook, provider):
    """The junk provider in turn: not JSON then the wrong shape (one question, two attempts),
    an answer citing nothing, an answer with a figure no passage has."""
    provider.junk()
    reasons = [_ask(handbook["bob"]).fallback for _ in range(3)]
    assert reasons == ["wrong_shape", "no_citation", "unsupported"]
    assert provider.chat_calls == 4


@pytest.mark.django_db
def test_unavailable_provider_says_so(handbook, provider):
    provider.queue(Reply(status=500))
    answer = _ask(handbook["bob"])
    assert answer.mode == "extractive" and answer.fallback == "unavailable"


@pytest.mark.django_db
def test_no_answer_never_carries_a_fallback_notice(handbook, provider):
    """GIVEN a model whose reply is refused WHEN the quotes say the handbook does not answer
    THEN the reader sees that alone, not also "the model did not cite its sources"."""
    provider.queue_json({"answer": "Paris is the capital.", "sources": []})
    answer = _ask(handbook["bob"], "What is the capital of Peru?")
    assert answer.mode == "no_answer"
    assert answer.notice == "" and answer.fallback == ""
    provider.hang()
    answer = _ask(handbook["bob"], "What is the capital of Peru?")
    assert answer.mode == "no_answer" and answer.notice == ""


def test_each_reason_has_its_own_message_in_english_and_french():
    with translation.override("en"):  # whatever language an earlier request left active
        english = {reason: str(message) for reason, message in FALLBACK_NOTICES.items()}
    with translation.override("fr"):
        french = {reason: str(message) for reason, message in FALLBACK_NOTICES.items()}
    assert set(english) == {"unavailable", "timed_out", "wrong_shape", "no_citation", "unsupported", "rate_limited"}
    assert len(set(english.values())) == len(english) and len(set(french.values())) == len(french)
    for reason in english:
        assert french[reason] != english[reason], f"{reason} has no French translation"


@pytest.mark.django_db
def test_notice_is_in_the_readers_language_in_the_stream(client, handbook, provider):
    provider.hang()
    client.force_login(handbook["bob"])
    response = client.post("/ask/stream/", {"q": QUESTION}, HTTP_ACCEPT_LANGUAGE="fr")
    body = b"".join(response.streaming_content).decode()
    with translation.override("fr"):
        expected = str(FALLBACK_NOTICES["timed_out"])
    assert json.dumps(expected)[1:-1] in body


def test_figures_check():
    from search.ask.grounding import unsupported_figures as _unsupported_figures
    from search.ask.passages import Passage

    passage = Passage(
        number=1, passage_id="p-1", chunk_id=1, page_id=1, ref="leave", title="Leave", url="/", anchor="",
        heading="", text="25 working days; five may be carried over; band E3 pays 61,000 euros.", language="en",
        revision_id=1, revision_number=1, content_hash="x", score=1.0, vector_distance=None, keyword_rank=1,
    )  # fmt: skip
    assert not _unsupported_figures("You get 25 days [1]; 5 carry over [1]; 61 000 euros [1].", [passage], "q")
    assert _unsupported_figures("You get 40 days [1].", [passage], "q") == {"40"}
    assert not _unsupported_figures("Yes, 40 days [1].", [passage], "Do I get 40 days?")  # the question said it


# --- Costs: limits per user, for the site, and for summaries -------------------------------


@pytest.mark.django_db
def test_user_limit_falls_back_with_a_clear_notice_and_spares_others(handbook, provider, settings):
    settings.LLM_USER_RATE_LIMIT = "1/m"
    assert _ask(handbook["bob"]).mode == "llm"
    limited = _ask(handbook["bob"])
    assert limited.mode == "extractive" and "25 working days" in limited.text
    assert limited.fallback == "rate_limited" and "limit" in limited.notice
    assert _ask(handbook["carol"]).mode == "llm"
    assert provider.chat_calls == 2  # the limited question sent nothing


@pytest.mark.django_db
def test_site_limit_applies_to_everyone(handbook, provider, settings):
    settings.LLM_GLOBAL_RATE_LIMIT = "1/m"
    assert _ask(handbook["bob"]).mode == "llm"
    assert _ask(handbook["carol"]).fallback == "rate_limited"
    events = list(stream_answer(user=handbook["carol"], question=QUESTION))
    assert [e["type"] for e in events] == ["done"] and events[0]["answer"].fallback == "rate_limited"


@pytest.mark.django_db
def test_summaries_have_their_own_limit_and_do_not_starve_ask(handbook, provider, settings):
    """A bulk import's summaries reach their limit; interactive Ask still has its whole budget."""
    from summaries.generate import summarise_llm

    settings.LLM_SUMMARY_RATE_LIMIT = "2/m"
    settings.LLM_GLOBAL_RATE_LIMIT = "1/m"
    provider.respond = None
    provider.default = Reply(content=json.dumps({"summary": "Leave rules.", "key_points": []}))
    for _ in range(2):
        assert summarise_llm(title="Leave", text="Leave rules.").text == "Leave rules."
    with pytest.raises(LLMRateLimited):
        summarise_llm(title="Leave", text="Leave rules.")
    provider.respond = _answer_reply
    assert _ask(handbook["bob"]).mode == "llm"


@pytest.mark.django_db
def test_summary_task_retries_later_at_the_limit(handbook, provider, settings, make_space, make_page):
    """At the summaries' limit the task's retry path is taken (LLMRateLimited is retryable)."""
    from core.llm import LLMUnavailable
    from summaries.services import summary_generate

    settings.LLM_SUMMARY_RATE_LIMIT = "1/m"
    provider.respond = None
    provider.default = Reply(content=json.dumps({"summary": "Leave rules.", "key_points": []}))
    space = make_space("more", viewers=("staff",))
    first = make_page(space, "One", "# One\n\nThe first page.", index=False)
    second = make_page(space, "Two", "# Two\n\nThe second page.", index=False)
    assert summary_generate(page_id=first.pk, revision_id=None).method == "llm"
    with pytest.raises(LLMUnavailable):
        summary_generate(page_id=second.pk, revision_id=None, retry_unavailable=True)
    assert provider.chat_calls == 1


@pytest.mark.django_db
def test_translation_counts_against_the_askers_limit(provider, settings, make_user):
    from search.retrieval.query_translation import translate_query

    cache.clear()
    settings.SEARCH_TRANSLATE_QUERIES = True
    settings.LLM_USER_RATE_LIMIT = "1/m"
    user = make_user("dora", "staff")
    assert translate_query("congés payés annuels", "fr", "en", user_id=user.pk) == "award leave expiration"
    assert translate_query("télétravail deux jours", "fr", "en", user_id=user.pk) is None
    assert provider.chat_calls == 1
