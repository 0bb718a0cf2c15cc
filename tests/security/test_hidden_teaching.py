"""What editors teach on pages a reader cannot read changes nothing that reader sees.

GIVEN a reader (bob) and pages he cannot read (a space of HR's, and a page of his own space
restricted to HR), WHEN editors verify answers on those pages — for the very questions bob asks —
and Ask's quote ranker is refitted from every verified answer (and allowed to serve whatever its
size), THEN bob's whole Ask reply to each question, through the service and the web page, is what
it was before. The same teaching on a page bob can read does change his reply (the control).
"""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache

from core import fitted as fitted_things
from search.ask import quote_learning
from search.ask.answers import answer_question
from search.models import QuoteRankerFit
from search.verified.selectors import picker_sections
from search.verified.services import verify_answer

pytestmark = [pytest.mark.django_db]

QUESTIONS = ["How many vacation days do I get?", "When are salary bands reviewed?", "Where is the coffee machine?"]
LEAVE = "# Annual leave\n\nYou get 25 vacation days per year.\n\nDays carry over to March.\n"
KITCHEN = "# Kitchen\n\nThe coffee machine is on the second floor.\n\nIt needs descaling every month.\n"
SALARIES = "# Salaries\n\nSalary bands are reviewed in March.\n\nVacation days are 30 for directors.\n"


@pytest.fixture
def world(make_space, make_page, make_user, monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(quote_learning, "MIN_ANSWERS", 0)  # a refit serves whatever its size
    people = make_space("people", viewers=("staff",), editors=("editors",))
    hr = make_space("hr", viewers=("hr",), editors=("editors",))
    return {
        "leave": make_page(people, "Annual leave", LEAVE),
        "kitchen": make_page(people, "Kitchen", KITCHEN),
        "salaries": make_page(hr, "Salaries", SALARIES),
        "restricted": make_page(people, "Directors", SALARIES, restricted_to=("hr",)),
        "bob": make_user("bob", "staff"),
        "editor": make_user("erin", "staff", "hr", "editors"),
    }


def _observe(client, bob) -> dict:  # type: ignore[no-untyped-def]
    seen = {}
    client.force_login(bob)
    for question in QUESTIONS:
        cache.clear()
        fitted_things.forget()
        seen[question] = answer_question(
            user=bob, question=question, rate_limit=False, use_cache=False, log=False
        ).as_json()
        page = client.post("/ask/", {"q": question}).content.decode()
        for volatile in (r'csrfmiddlewaretoken" value="[^"]*"', r'nonce="[^"]*"', r'"x-csrftoken": "[^"]*"'):
            page = re.sub(volatile, "", page)
        seen[f"page:{question}"] = re.sub(r'(log_id" value="|feedback-comment-)\d+', "", page)
    return seen


def _teach(world, page_key: str, capture) -> None:  # type: ignore[no-untyped-def]
    page = world[page_key]
    units = [h for section in picker_sections(page) for h, _u in section.units]
    for question in QUESTIONS:
        with capture(execute=True):
            verify_answer(editor=world["editor"], question=question, page=page, unit_hashes=units[-1:])


def test_hidden_teaching_changes_nothing_bob_sees(client, world, django_capture_on_commit_callbacks):
    _teach(world, "kitchen", django_capture_on_commit_callbacks)  # a fitted ranker, from a page all read
    fitted = QuoteRankerFit.objects.get()
    assert fitted.weights and fitted.report["answers"] == len(QUESTIONS)
    before = _observe(client, world["bob"])
    assert all(before[q]["answer"] for q in QUESTIONS)  # the observation is not empty
    _teach(world, "salaries", django_capture_on_commit_callbacks)
    _teach(world, "restricted", django_capture_on_commit_callbacks)
    refitted = QuoteRankerFit.objects.get()
    assert refitted.fitted_at > fitted.fitted_at and refitted.weights == fitted.weights
    after = _observe(client, world["bob"])
    assert [k for k in before if before[k] != after[k]] == []


def test_the_same_teaching_on_a_readable_page_is_seen(client, world, django_capture_on_commit_callbacks):
    before = _observe(client, world["bob"])
    _teach(world, "kitchen", django_capture_on_commit_callbacks)
    after = _observe(client, world["bob"])
    assert any(after[q]["verified"] for q in QUESTIONS)
    assert [k for k in before if before[k] != after[k]]
