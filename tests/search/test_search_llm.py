"""Search with an LLM configured never waits on it: translations are fetched off the request.

Through the views and the real ``openai`` client against the fake provider: a
submitted search queues one translation task per new query (after commit,
deduplicated), the next search of that query uses it, and search-as-you-type
fragments (the search box's own htmx requests) never cause an LLM call.
"""

from __future__ import annotations

import json
import time

import pytest
from django.core.cache import cache

from search.retrieval.pipeline import retrieve
from tests.fake_llm import Reply

LEAVE_EN = "# Award leave\n\nAward leave expires one year after it is issued. Use it before it lapses."
CANTEEN_FR = "# Cantine\n\nLe repas coûte quatre euros."
QUERY = "congé de récompense"  # no word of it in the English page, whatever the stemmer
HX_TYPING = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TRIGGER": "q", "HTTP_HX_TRIGGER_NAME": "q"}
HX_SUBMIT = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TRIGGER": "search-form"}


@pytest.fixture
def bilingual(make_space, make_page, make_user, no_embeddings):  # type: ignore[no-untyped-def]
    """Keyword search only: a French query reaches the English page through a translation alone."""
    cache.clear()
    space = make_space("people")
    leave = make_page(space, "Award leave", LEAVE_EN, ref="leave")
    make_page(space, "Cantine", CANTEEN_FR, language="fr", ref="canteen")
    return leave, make_user("bob", "staff")


def _translator(payload: dict) -> Reply:  # type: ignore[type-arg]
    if payload["messages"][0]["content"].startswith("Translate"):
        return Reply(content=json.dumps({"translation": "award leave expiration"}))
    return Reply(content=json.dumps({"answer": "Award leave expires after a year [1].", "sources": [1]}))


@pytest.fixture
def provider(fake_llm, settings):  # type: ignore[no-untyped-def]
    settings.SEARCH_TRANSLATE_QUERIES = True
    settings.LLM_TIMEOUT_S = 30.0
    fake_llm.respond = _translator
    return fake_llm


@pytest.mark.django_db
def test_search_does_not_wait_for_a_hanging_provider(bilingual, provider):
    provider.hang()
    started = time.monotonic()
    result = retrieve(QUERY, bilingual[1])
    assert time.monotonic() - started < 2.0  # the old synchronous translation waited 3 s
    assert provider.chat_calls == 0
    assert bilingual[0].pk not in [p.page_id for p in result.pages]  # no translation at hand yet


@pytest.mark.django_db
def test_submitted_search_fetches_the_translation_for_the_next_search(
    client, bilingual, provider, django_capture_on_commit_callbacks
):
    """GIVEN a new French query WHEN it is searched THEN the page comes from what is at hand and one
    translation task is queued after commit; the next search of that query finds the English page."""
    leave, bob = bilingual
    client.force_login(bob)
    with django_capture_on_commit_callbacks(execute=False) as queued:
        first = client.get("/search/", {"q": QUERY}).content.decode()
        client.get("/search/", {"q": QUERY}, **HX_SUBMIT)  # submitted again before the task ran
    assert "Award leave" not in first and provider.chat_calls == 0  # nothing called on the request
    for callback in queued:
        callback()  # after commit: the fetch is queued once and runs (eagerly, in tests)
    assert provider.chat_calls == 1
    second = client.get("/search/", {"q": QUERY}).content.decode()
    assert "Award leave" in second
    with django_capture_on_commit_callbacks(execute=True):
        client.get("/search/", {"q": QUERY})
        client.get("/search/", {"q": "  Congé de  RÉCOMPENSE "})  # same words
    assert provider.chat_calls == 1  # one query, one call


@pytest.mark.django_db
def test_failed_translation_is_not_asked_again_at_once(client, bilingual, provider, django_capture_on_commit_callbacks):
    provider.respond = None
    provider.queue(Reply(status=500))
    client.force_login(bilingual[1])
    with django_capture_on_commit_callbacks(execute=True):
        client.get("/search/", {"q": QUERY})
    with django_capture_on_commit_callbacks(execute=True):
        assert client.get("/search/", {"q": QUERY}).status_code == 200
    assert provider.chat_calls == 1


@pytest.mark.django_db
def test_typing_fragments_never_call_the_llm(client, bilingual, provider, django_capture_on_commit_callbacks):
    """Search as you type, question included: results, Ask panel and its answer, all without the model."""
    client.force_login(bilingual[1])
    question = "quand expire le congé de récompense ?"
    with django_capture_on_commit_callbacks(execute=True) as queued:
        for typed in ("quand expire", "quand expire le congé", question):
            html = client.get("/search/", {"q": typed}, **HX_TYPING).content.decode()
        assert '"typing": "1"' in html.replace("&quot;", '"')  # the Ask panel asks for quotes only
        answer = client.post("/ask/", {"q": question, "typing": "1"}, **HX_TYPING).content.decode()
        stream = b"".join(client.post("/ask/stream/", {"q": question, "typing": "1"}).streaming_content).decode()
    assert queued == [] and provider.chat_calls == 0
    assert "Written by a language model" not in answer and "Written by a language model" not in stream


@pytest.mark.django_db
def test_submitted_question_gets_the_written_answer(client, bilingual, provider):
    client.force_login(bilingual[1])
    html = client.get("/search/", {"q": "when does award leave expire?"}, **HX_SUBMIT).content.decode()
    assert '"typing"' not in html.replace("&quot;", '"')
    answer = client.post("/ask/", {"q": "when does award leave expire?"}, HTTP_HX_REQUEST="true").content.decode()
    assert "Written by a language model" in answer and provider.chat_calls == 1
