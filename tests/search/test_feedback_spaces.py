"""A reader's "No" reaches editors: the feedback form's second step names a space the
reader may read; Insights lists thumbs-down no-answers under its visibility rule and ratings that
name a space to that space's editors; questions answered wrongly several times are gaps."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.core.cache import cache

from search.ask.feedback import FeedbackError, feedback_record
from search.insights.selectors import insights_scope, rejected_answers, top_questions, unanswered
from search.models import AskLog

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast(settings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def world(make_space, make_page, make_user, no_embeddings) -> SimpleNamespace:  # type: ignore[no-untyped-def]
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    finance = make_space("finance", viewers=("staff",), editors=("finance-editors",))
    board = make_space("board", viewers=("board",), editors=("board",))
    return SimpleNamespace(
        hr=hr,
        finance=finance,
        board=board,
        travel=make_page(hr, "Travel", "# Travel\n\nTrains are booked by the travel desk.\n", ref="travel"),
        bonus=make_page(hr, "Bonus", "# Bonus\n\nThe bonussecret rule.\n", ref="bonus", restricted_to=("pay",)),
        bob=make_user("bob", "staff"),
        hr_editor=make_user("hred", "staff", "hr-editors"),
        finance_editor=make_user("fined", "staff", "finance-editors"),
        root=make_user("root", superuser=True),
    )


def _no_answer(world: Any, question: str, pages: list[Any], **fields: Any) -> AskLog:
    return AskLog.objects.create(
        user=world.bob,
        question=question,
        mode=AskLog.Mode.NO_ANSWER,
        passage_spaces=list(dict.fromkeys(p.space_id for p in pages)),
        passage_pages=[p.pk for p in pages],
        **fields,
    )


def _comments(user: Any) -> list[str]:
    return [r.comment for r in rejected_answers(insights_scope(user), user)]


# --- Recording ------------------------------------------------------------------------------


def test_a_reader_may_name_only_a_space_they_can_read(world):
    log = _no_answer(world, "What is the per diem?", [])
    feedback_record(user=world.bob, log_id=log.pk, helpful=False, comment="See Finance", space_id=world.finance.pk)
    log.refresh_from_db()
    assert log.feedback_space == world.finance and log.comment == "See Finance" and log.helpful is False
    with pytest.raises(FeedbackError):
        feedback_record(user=world.bob, log_id=log.pk, helpful=False, space_id=world.board.pk)
    # A thumbs-up names no space.
    feedback_record(user=world.bob, log_id=log.pk, helpful=True, space_id=world.finance.pk)
    log.refresh_from_db()
    assert log.feedback_space is None


def test_the_second_step_offers_the_readers_spaces_and_records_the_choice(client, world):
    log = _no_answer(world, "What is the per diem?", [])
    client.force_login(world.bob)
    html = client.post("/ask/feedback/", {"log_id": log.pk, "helpful": "0", "comment": "hm"}).content.decode()
    assert 'name="space"' in html and "Finance" in html and "Hr" in html and "Board" not in html
    assert ">hm</textarea>" in html  # the comment already given comes back to be completed
    response = client.post(
        "/ask/feedback/",
        {"log_id": log.pk, "helpful": "0", "step": "space", "space": world.finance.pk, "comment": "In Finance"},
        HTTP_HX_REQUEST="true",
    )
    assert "The editors of Finance will see it." in response.content.decode()
    log.refresh_from_db()
    assert log.feedback_space == world.finance and log.comment == "In Finance"
    # A space the reader cannot read is refused, whatever the browser sends.
    response = client.post(
        "/ask/feedback/", {"log_id": log.pk, "helpful": "0", "step": "space", "space": world.board.pk}
    )
    assert response.status_code == 404
    log.refresh_from_db()
    assert log.feedback_space == world.finance


def test_a_yes_needs_no_second_step(client, world):
    log = _no_answer(world, "What is the per diem?", [])
    client.force_login(world.bob)
    html = client.post("/ask/feedback/", {"log_id": log.pk, "helpful": "1"}).content.decode()
    assert "Thanks for your feedback." in html and 'name="space"' not in html


# --- Insights -------------------------------------------------------------------------------


def test_a_no_answer_rated_no_reaches_the_editors_of_its_passages(world):
    _no_answer(world, "Per diem in Lyon?", [world.travel], helpful=False, comment="travelcomment")
    _no_answer(world, "Bonus per diem?", [world.travel, world.bonus], helpful=False, comment="bonuscomment")
    _no_answer(world, "Per diem?", [], helpful=False, comment="nowherecomment")
    assert _comments(world.hr_editor) == ["travelcomment"]  # not the one that reached a page they cannot read
    assert _comments(world.finance_editor) == []
    assert sorted(_comments(world.root)) == ["bonuscomment", "nowherecomment", "travelcomment"]
    item = rejected_answers(insights_scope(world.hr_editor), world.hr_editor)[0]
    assert item.no_answer and item.named_space is None


def test_a_rating_that_names_a_space_reaches_its_editors_and_only_them(world):
    _no_answer(world, "Per diem?", [], helpful=False, comment="It is in Finance", feedback_space=world.finance)
    # Named, but the passages reached a page the finance editor cannot read: question and comment
    # only, nothing of the answer or its sources.
    AskLog.objects.create(
        user=world.bob,
        question="What is the bonus?",
        mode=AskLog.Mode.EXTRACTIVE,
        answer="“The bonussecret rule.” [1]",
        citations=[{"ref": "bonus", "anchor": "", "revision": 1, "quote": "The bonussecret rule."}],
        passage_spaces=[world.hr.pk],
        passage_pages=[world.bonus.pk],
        helpful=False,
        comment="Wrong: ask Finance",
        feedback_space=world.finance,
    )
    items = rejected_answers(insights_scope(world.finance_editor), world.finance_editor)
    assert [i.comment for i in items] == ["Wrong: ask Finance", "It is in Finance"]
    assert all(i.named_space == world.finance for i in items)
    assert items[0].answer == "" and items[0].citations == [] and items[0].hidden_citations == 0
    assert _comments(world.hr_editor) == []  # named another space; the bonus page is not theirs to read


def test_questions_rated_no_several_times_are_gaps_not_answers(world, make_user):
    for n in range(2):
        AskLog.objects.create(
            user=make_user(f"asker{n}", "staff"),
            question="Who books trains?",
            mode=AskLog.Mode.EXTRACTIVE,
            answer="…",
            passage_spaces=[world.hr.pk],
            passage_pages=[world.travel.pk],
            helpful=False,
        )
    AskLog.objects.create(
        question="Who books hotels?",
        mode=AskLog.Mode.EXTRACTIVE,
        passage_spaces=[world.hr.pk],
        passage_pages=[world.travel.pk],
        helpful=False,
    )
    AskLog.objects.create(
        question="Who books taxis?", mode="extractive", passage_spaces=[world.hr.pk], passage_pages=[world.travel.pk]
    )
    scope = insights_scope(world.hr_editor)
    gaps = {item.group.text: item.group for item in unanswered(scope)}
    assert set(gaps) == {"Who books trains?"} and gaps["Who books trains?"].rejected == 2
    top = {g.text: g for entry in top_questions(scope) for g in entry.groups}
    assert top["Who books trains?"].unanswered and top["Who books trains?"].answered_badly
    assert not top["Who books hotels?"].unanswered and top["Who books hotels?"].rejected == 1
    assert not top["Who books taxis?"].unanswered


def test_the_insights_page_shows_the_named_space_and_marks_the_gap(client, world):
    _no_answer(world, "Per diem?", [], helpful=False, comment="It is in Finance", feedback_space=world.finance)
    client.force_login(world.finance_editor)
    html = client.get("/insights/").content.decode()
    assert "It is in Finance" in html and "The reader says Finance should answer this." in html
    assert "no answer found" in html
