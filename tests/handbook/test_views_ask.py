"""Ask in the browser: answer fragment, escaping, citations, streaming, feedback.

Asking is a POST (the form, the htmx panel, the stream); a GET only shows the form.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tests.fake_llm import Reply

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def _events(response) -> list[tuple[str, dict]]:  # type: ignore[no-untyped-def]
    raw = b"".join(response.streaming_content).decode()
    events = []
    for block in raw.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def test_ask_page_without_question_shows_the_form(client, handbook):
    client.force_login(handbook.reader)
    response = client.get("/ask/")
    assert response.status_code == 200
    assert b'name="q"' in response.content and b"citations" not in response.content


def test_ask_answers_with_cited_links_to_passages(client, handbook):
    client.force_login(handbook.reader)
    html = client.post("/ask/", {"q": "how many days can staff work from home?"}).content.decode()
    assert "<html" in html
    # Without embeddings no answer is sure: its quote is a passage to check, linked to its place.
    assert "The handbook may answer this here:" in html
    assert 'href="/spaces/hr/remote-work/#remote-work" class="citation__link"' in html
    assert "revision 1" in html and ">EN<" in html
    assert "Was this helpful?" in html


def test_ask_htmx_returns_the_answer_fragment_only(client, handbook):
    client.force_login(handbook.reader)
    html = client.post("/ask/", {"q": "how many days can staff work from home?"}, **HX).content.decode()
    assert "<html" not in html and "<body" not in html
    assert 'class="citation__quote"' in html


@pytest.fixture
def answer_llm(fake_llm, settings):  # type: ignore[no-untyped-def]
    """The fake LLM, answering only Ask: query translation (which would take the
    first scripted reply) is off, so each queued reply is the answer."""
    settings.SEARCH_TRANSLATE_QUERIES = False
    return fake_llm


def test_model_text_is_escaped(client, handbook, answer_llm):
    fake_llm = answer_llm
    fake_llm.queue_json(
        {
            "answer": "Staff may work from home three days a week <img src=x onerror=alert(1)> "
            "<script>x()</script> [1]",
            "sources": [1],
        }
    )
    client.force_login(handbook.reader)
    html = client.post("/ask/", {"q": "how many days from home?"}, **HX).content.decode()
    assert "<img" not in html and "<script" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert 'class="cite"' in html  # the marker itself still becomes a link
    assert "Written by a language model" in html


def test_no_answer_says_so_and_links_to_search(client, handbook):
    client.force_login(handbook.reader)
    html = client.post("/ask/", {"q": "what is the airspeed velocity of an unladen swallow?"}, **HX).content.decode()
    assert "The handbook doesn't seem to answer this." in html
    assert 'href="/search/?q=what+is+the+airspeed' in html


def test_outdated_citation_is_flagged(client, handbook, monkeypatch):
    from search.ask import answers

    original = answers.mark_outdated

    def everything_outdated(answer):  # type: ignore[no-untyped-def]
        original(answer)
        for citation in answer.citations:
            citation.outdated = True

    monkeypatch.setattr(answers, "mark_outdated", everything_outdated)
    client.force_login(handbook.reader)
    html = client.post("/ask/", {"q": "how many days can staff work from home?"}, **HX).content.decode()
    assert "source updated since" in html


@pytest.mark.parametrize(("question", "message"), [("   ", "Please type a question"), ("x" * 5000, "too long")])
def test_bad_questions_show_a_message(client, handbook, question, message):
    client.force_login(handbook.reader)
    response = client.post("/ask/", {"q": question}, **HX)
    assert response.status_code == 200
    assert message in response.content.decode()


def test_restricted_page_is_never_cited_to_a_non_member(client, handbook):
    client.force_login(handbook.reader)
    html = client.post("/ask/", {"q": "what is the confidential salary grid?"}).content.decode()
    assert "Salary bands" not in html and "salary-bands" not in html


def test_stream_sends_deltas_then_the_rendered_answer(client, handbook, answer_llm):
    fake_llm = answer_llm
    fake_llm.queue(Reply(stream_chunks=["Up to three ", "days a week <b>", " [1]."]))
    client.force_login(handbook.reader)
    response = client.post("/ask/stream/", {"q": "how many days can staff work from home?"})
    assert response["Content-Type"].startswith("text/event-stream")
    events = _events(response)
    deltas = [data["text"] for name, data in events if name == "delta"]
    assert "".join(deltas) == "Up to three days a week <b> [1]."
    name, data = events[-1]
    assert name == "done"
    assert "days a week &lt;b&gt;" in data["html"] and 'class="cite"' in data["html"]


def test_stream_reports_bad_questions_as_an_event(client, handbook):
    client.force_login(handbook.reader)
    events = _events(client.post("/ask/stream/", {"q": ""}))
    assert events == [("ask-error", {"message": "Please type a question."})]


def _ask(client: Client) -> int:
    client.get("/ask/")  # the form sets the CSRF cookie; htmx sends the token as a header
    token = client.cookies["csrftoken"].value
    html = client.post(
        "/ask/", {"q": "how many days can staff work from home?"}, HTTP_X_CSRFTOKEN=token, **HX
    ).content.decode()
    return int(html.split('name="log_id" value="')[1].split('"')[0])


def test_feedback_is_recorded_for_the_asker(client, handbook):
    from search.models import AskLog

    client.force_login(handbook.reader)
    log_id = _ask(client)
    response = client.post("/ask/feedback/", {"log_id": log_id, "helpful": "0", "comment": "too vague"}, **HX)
    assert response.status_code == 200 and b"Thanks" in response.content
    log = AskLog.objects.get(pk=log_id)
    assert log.helpful is False and log.comment == "too vague"


def test_feedback_on_someone_elses_answer_is_refused(client, handbook):
    from search.models import AskLog

    client.force_login(handbook.reader)
    log_id = _ask(client)
    other = Client()
    other.force_login(handbook.editor)
    response = other.post("/ask/feedback/", {"log_id": log_id, "helpful": "1"})
    assert response.status_code == 404
    assert AskLog.objects.get(pk=log_id).helpful is None


def test_feedback_needs_a_csrf_token(handbook):
    client = Client(enforce_csrf_checks=True)
    client.force_login(handbook.reader)
    log_id = _ask(client)
    assert client.post("/ask/feedback/", {"log_id": log_id, "helpful": "1"}).status_code == 403
