"""Insights and the people who ask: a question is shown to an editor only when they may read every
page its passages came from; one that matched nothing only once several people asked it (superusers:
all); times to the day; and nothing on the page moves when content the editor cannot read changes."""

from __future__ import annotations

import datetime
import re
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.cache import cache
from django.utils import timezone

from search.insights.rejected_pages import rejected_pages
from search.insights.selectors import insights_scope, rejected_answers, top_questions, unanswered
from search.models import AskLog

pytestmark = pytest.mark.django_db

GARAGE = "# Parking\n\nThe garage under building B has forty spaces.\n"
GATE = "# Gate\n\nThe gatecodesecret is 1234.\n"
BANDS = "# Salary bands\n\nThe bandsecret grid of engineering levels.\n"
MIN_ASKERS = 3  # search.insights.visibility.MIN_ASKERS (checked below)


@pytest.fixture(autouse=True)
def _fast(settings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
    yield
    cache.clear()


def _log(question: str, pages: list[Any], *, user: Any = None, mode: str = AskLog.Mode.NO_ANSWER, **fields: Any) -> Any:
    """A row as ``search.ask.answers._log`` writes it: the passages' spaces and pages, best first."""
    return AskLog.objects.create(
        question=question,
        mode=mode,
        user=user,
        passage_spaces=list(dict.fromkeys(p.space_id for p in pages)),
        passage_pages=[p.pk for p in pages],
        **fields,
    )


def _rejected(question: str, cited: Any, pages: list[Any], comment: str) -> AskLog:
    return _log(
        question,
        pages,
        mode=AskLog.Mode.EXTRACTIVE,
        answer=f"“{cited.title}” [1]",
        citations=[{"ref": cited.ref, "anchor": "", "revision": 1, "quote": cited.title}],
        helpful=False,
        comment=comment,
    )


@pytest.fixture
def world(make_space, make_page, make_user, no_embeddings) -> SimpleNamespace:  # type: ignore[no-untyped-def]
    a = make_space("facilities", viewers=("staff",), editors=("a-editors",))
    b = make_space("payroll", viewers=("payroll",), editors=("b-editors",))
    return SimpleNamespace(
        a=a,
        b=b,
        garage=make_page(a, "Parking garage", GARAGE, ref="garage"),
        gate=make_page(a, "Gate codes", GATE, ref="gate", restricted_to=("guards",)),
        bands=make_page(b, "Salary bands", BANDS, ref="bands"),
        editor_a=make_user("eda", "staff", "a-editors"),  # reads neither the gate page nor payroll
        guard=make_user("guard", "staff", "a-editors", "guards"),
        editor_ab=make_user("edab", "staff", "payroll", "a-editors", "b-editors"),
        root=make_user("root", superuser=True),
        askers=[make_user(f"asker{n}", "staff") for n in range(MIN_ASKERS)],
    )


def _unanswered(user: Any) -> list[str]:
    return [item.group.text for item in unanswered(insights_scope(user))]


def _top(user: Any) -> dict[str, list[str]]:
    return {entry.space.slug: [g.text for g in entry.groups] for entry in top_questions(insights_scope(user))}


def _insights(client: Any, user: Any) -> str:
    """The Insights content (the layout around it holds per-request tokens)."""
    client.force_login(user)
    response = client.get("/insights/")
    assert response.status_code == 200
    body = response.content.decode()
    return body[body.index('<div class="narrow insights">') : body.index("</main>")]


def test_a_question_that_reached_a_restricted_page_of_their_space_is_not_shown(world):
    _log("What is the gate code?", [world.gate])
    _log("Who changes the gate code?", [world.gate], mode=AskLog.Mode.EXTRACTIVE)
    _log("Where is the garage?", [world.garage])
    assert _unanswered(world.editor_a) == ["Where is the garage?"]
    assert _top(world.editor_a) == {"facilities": ["Where is the garage?"]}
    # The editor who may read the page sees them.
    assert "What is the gate code?" in _unanswered(world.guard)
    assert "Who changes the gate code?" in _top(world.guard)["facilities"]


def test_a_question_that_also_reached_a_space_they_cannot_read_is_not_shown(world):
    _log("Garage and salary bands?", [world.garage, world.bands])
    _log("Parking allowance in the bands?", [world.garage, world.bands], mode=AskLog.Mode.EXTRACTIVE)
    assert _unanswered(world.editor_a) == [] and _top(world.editor_a) == {}
    # Shown to whoever may read both pages, and to superusers.
    assert _unanswered(world.editor_ab) == ["Garage and salary bands?"]
    assert _top(world.editor_ab) == {"facilities": ["Parking allowance in the bands?", "Garage and salary bands?"]}
    assert _unanswered(world.root) == ["Garage and salary bands?"]


def test_a_question_that_matched_nothing_is_shown_once_several_people_asked_it(world):
    lonely = world.askers[0]
    for _ in range(MIN_ASKERS):  # one person, asking again and again
        _log("Is the wifi password written anywhere?", [], user=lonely)
    for _ in range(MIN_ASKERS):  # people since deleted: not known to be distinct
        _log("Where is the lost and found?", [], user=None)
    for asker in world.askers:
        _log("When is the canteen open?", [], user=asker)
    _log("when is the canteen OPEN", [], user=world.askers[0])  # the same words, another wording
    assert _unanswered(world.editor_a) == ["When is the canteen open?"]
    assert _unanswered(world.editor_ab) == ["When is the canteen open?"]
    assert set(_unanswered(world.root)) == {
        "When is the canteen open?",
        "Is the wifi password written anywhere?",
        "Where is the lost and found?",
    }


def test_the_askers_threshold_is_the_stated_one():
    from search.insights import visibility

    assert visibility.MIN_ASKERS == MIN_ASKERS


def test_a_legacy_row_without_its_pages_is_for_superusers_only(world):
    AskLog.objects.create(question="Legacy near miss", mode=AskLog.Mode.NO_ANSWER, passage_spaces=[world.a.pk])
    AskLog.objects.create(question="Legacy before spaces", mode=AskLog.Mode.NO_ANSWER)
    AskLog.objects.create(question="Legacy nothing", mode=AskLog.Mode.NO_ANSWER, passage_spaces=[])
    assert _unanswered(world.editor_a) == []
    assert set(_unanswered(world.root)) == {"Legacy near miss", "Legacy before spaces", "Legacy nothing"}


def test_rejected_answers_are_shown_only_when_every_passage_is_readable(world):
    _rejected("How many garage spaces?", world.garage, [world.garage], "plaincomment")
    _rejected("Garage spaces and the gate?", world.garage, [world.garage, world.gate], "gatecomment")
    _rejected("Garage spaces and pay?", world.garage, [world.garage, world.bands], "paycomment")
    assert [r.comment for r in rejected_answers(insights_scope(world.editor_a), world.editor_a)] == ["plaincomment"]
    # "Pages to review" counts the same thumbs-down only.
    assert [(r.page.ref, r.thumbs_down) for r in rejected_pages(world.editor_a)] == [("garage", 1)]
    assert [(r.page.ref, r.thumbs_down) for r in rejected_pages(world.guard)] == [("garage", 2)]
    assert [(r.page.ref, r.thumbs_down) for r in rejected_pages(world.root)] == [("garage", 3)]
    shown = [r.comment for r in rejected_answers(insights_scope(world.guard), world.guard)]
    assert sorted(shown) == ["gatecomment", "plaincomment"]


def test_times_of_asked_questions_are_shown_to_the_day(client, world):
    _log("Where is the garage?", [world.garage])
    _rejected("How many garage spaces?", world.garage, [world.garage], "plaincomment")
    at = timezone.make_aware(datetime.datetime(2025, 3, 4, 13, 47))
    AskLog.objects.update(created_at=at)
    body = _insights(client, world.editor_a)
    assert "Where is the garage?" in body and "plaincomment" in body and "Parking garage" in body
    assert not re.search(r"\d:\d\d|[ap]\.m\.", body), re.findall(r".{40}\d:\d\d.{20}", body)
    assert "03/04/2025" in body or "2025-03-04" in body


def _everything(client: Any, user: Any) -> tuple[Any, ...]:
    scope = insights_scope(user)
    return (
        _insights(client, user),
        repr(unanswered(scope)),
        repr(top_questions(scope)),
        repr(rejected_answers(scope, user)),
        repr(rejected_pages(user)),
    )


@pytest.mark.parametrize("where", ["restricted page of their space", "page of a space they cannot read"])
def test_insights_do_not_change_with_content_the_editor_cannot_read(client, world, make_page, monkeypatch, where):
    from search.insights import selectors

    # Lists just long enough for what the editor may see: the newer questions they may not see must
    # be left out before the limit, not after it.
    monkeypatch.setattr(selectors, "MAX_ROWS", 4)
    monkeypatch.setattr(selectors, "MAX_REJECTED", 1)
    # What the editor may see: questions on the garage, one that matched nothing for several people.
    _log("Where is the garage?", [world.garage], user=world.askers[0])
    _log("Where is the garage?", [world.garage], user=world.askers[1], mode=AskLog.Mode.EXTRACTIVE)
    _rejected("How many garage spaces?", world.garage, [world.garage], "plaincomment")
    for asker in world.askers:
        _log("When is the canteen open?", [], user=asker)
    before = _everything(client, world.editor_a)
    assert "Where is the garage?" in before[0] and "plaincomment" in before[0] and "canteen" in before[0]

    # Another world: the same, plus a page the editor may not read and the questions asked of it.
    if where == "restricted page of their space":
        hidden = make_page(world.a, "Alarm codes", "# Alarm\n\nThe alarmsecret is 42.\n", restricted_to=("guards",))
    else:
        hidden = make_page(world.b, "Alarm codes", "# Alarm\n\nThe alarmsecret is 42.\n")
    for asker in world.askers:
        _log("What is the alarm code?", [hidden], user=asker)
        _log("Where is the garage?", [world.garage, hidden], user=asker)
        _log("Where is the garage alarm?", [hidden, world.garage], user=asker, mode=AskLog.Mode.LLM)
    _rejected("How many garage spaces?", world.garage, [world.garage, hidden], "alarmcomment")
    _rejected("Alarm code?", hidden, [hidden], "alarmonly")
    assert _everything(client, world.editor_a) == before
