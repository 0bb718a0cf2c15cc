"""The loop Insights closes: a question the handbook could not answer, an editor publishes the
answer, Insights says "possibly fixed" (linking the page), and the same question now gets an
answer citing it. Never through a page the viewing editor may not read."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.core.cache import cache

from handbook.services import page_create, page_save
from search.ask.answers import answer_question
from search.insights import fixes
from search.insights.selectors import insights_scope, unanswered
from search.insights.visibility import MIN_ASKERS
from search.models import AskLog

pytestmark = pytest.mark.django_db

ROOFTOP = "# Rooftop terrace\n\nThe rooftop terrace has plants and benches, open for the lunch break.\n"
SAUNA_QUESTION = "When does the rooftop sauna open?"
SAUNA_ANSWER = "# Rooftop sauna\n\nThe rooftop sauna opens every weekday at seven in the morning.\n"
PARKING_QUESTION = "Where can I charge my electric scooter?"
SCOOTER = "# Scooters\n\nYou can charge your electric scooter at the sockets beside the bike racks.\n"
SECRET = "# Scooter allowance\n\nsecretscooter: you can charge your electric scooter at home, reimbursed.\n"


@pytest.fixture(autouse=True)
def _fast(settings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def world(make_space, make_page, make_user) -> SimpleNamespace:  # type: ignore[no-untyped-def]
    a = make_space("facilities", viewers=("staff",), editors=("a-editors",))
    b = make_space("payroll", viewers=("payroll",), editors=("b-editors",))
    rooftop = make_page(a, "Rooftop terrace", ROOFTOP, ref="rooftop")
    return SimpleNamespace(
        a=a,
        b=b,
        rooftop=rooftop,
        asker=make_user("asker", "staff"),
        # A question that matched nothing is shown to editors once this many people asked it.
        others=[make_user(f"asker{n}", "staff") for n in range(2, MIN_ASKERS + 1)],
        editor_a=make_user("eda", "staff", "a-editors"),
        editor_b=make_user("edb", "payroll", "b-editors"),
    )


def _ask(user: Any, question: str) -> Any:
    # The real Ask path, its answer cache included: a second ask must not replay the first.
    return answer_question(user=user, question=question, rate_limit=False, use_llm=False)


@pytest.fixture
def publish(django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """Publish a new page through the editor's service, indexed as the commit would."""

    def make(space: Any, title: str, body: str, author: Any) -> Any:
        with django_capture_on_commit_callbacks(execute=True):
            page = page_create(space=space, title=title, body=body, author=author)
        page.refresh_from_db()
        return page

    return make


def _ask_by_several(world: Any, question: str) -> Any:
    """``question`` asked by ``MIN_ASKERS`` people (the first answer is returned)."""
    first = _ask(world.asker, question)
    for other in world.others:
        _ask(other, question)
    return first


def _insights(client: Any, user: Any) -> str:
    client.force_login(user)
    response = client.get("/insights/")
    assert response.status_code == 200
    return response.content.decode()


def _row(body: str, question: str) -> str:
    """The Insights table row of ``question``."""
    start = body.index(question)
    return body[body.rindex('<tr class="gap">', 0, start) : body.index("</tr>", start)]


def test_a_new_revision_answers_a_question_that_reached_its_page(client, world, django_capture_on_commit_callbacks):
    first = _ask(world.asker, SAUNA_QUESTION)
    assert first.mode == "no_answer"
    log = AskLog.objects.get(question=SAUNA_QUESTION)
    assert log.passage_spaces == [world.a.pk]  # the terrace page came close
    row = _row(_insights(client, world.editor_a), SAUNA_QUESTION)
    assert "possibly fixed" not in row

    # The editor adds the answer to the page that came close: a new published revision.
    with django_capture_on_commit_callbacks(execute=True):
        page_save(page=world.rooftop, title="Rooftop", body=ROOFTOP + "\n" + SAUNA_ANSWER, author=world.editor_a)

    row = _row(_insights(client, world.editor_a), SAUNA_QUESTION)
    assert "possibly fixed" in row
    assert f'href="{world.rooftop.get_absolute_url()}"' in row and ">Rooftop</a>" in row

    again = _ask(world.asker, SAUNA_QUESTION)
    assert again.mode == "extractive" and not again.cached
    assert [c.ref for c in again.citations] == ["rooftop"]
    assert "seven in the morning" in again.text


def test_a_new_page_answers_a_question_that_reached_nothing(no_embeddings, client, world, publish):
    first = _ask_by_several(world, PARKING_QUESTION)
    assert first.mode == "no_answer"
    assert _ask(world.asker, PARKING_QUESTION).cached  # the answer cache is on: same passages, same answer
    logged = AskLog.objects.filter(question=PARKING_QUESTION).values_list("passage_spaces", flat=True)
    assert list(logged) == [[]] * (MIN_ASKERS + 1)
    row = _row(_insights(client, world.editor_a), PARKING_QUESTION)
    assert "possibly fixed" not in row and "nothing matched" in row

    scooters = publish(world.a, "Charging scooters", SCOOTER, world.editor_a)

    row = _row(_insights(client, world.editor_a), PARKING_QUESTION)
    assert "possibly fixed" in row
    assert f'href="{scooters.get_absolute_url()}">Charging scooters</a>' in row

    again = _ask(world.asker, PARKING_QUESTION)
    assert again.mode == "extractive" and not again.cached
    assert [c.ref for c in again.citations] == [scooters.ref]
    assert "bike racks" in again.text


def test_a_fix_the_editor_may_not_read_is_never_shown_to_them(no_embeddings, client, world, publish):
    assert _ask_by_several(world, PARKING_QUESTION).mode == "no_answer"
    # The answer lands in the payroll space, which the facilities editor may not read.
    publish(world.b, "Scooter allowance", SECRET, world.editor_b)

    body = _insights(client, world.editor_a)
    row = _row(body, PARKING_QUESTION)
    assert "possibly fixed" not in row
    assert "Scooter allowance" not in body and "secretscooter" not in body

    # Its own editors see the question (it reached nothing) fixed by their page.
    row = _row(_insights(client, world.editor_b), PARKING_QUESTION)
    assert "possibly fixed" in row and "Scooter allowance" in row


def test_an_unrelated_or_older_page_fixes_nothing(no_embeddings, client, world, publish):
    publish(world.a, "Charging scooters", SCOOTER, world.editor_a)
    # Asked after the page was published, and answered by nothing new since.
    for user in [world.asker, *world.others]:
        AskLog.objects.create(question=PARKING_QUESTION, mode="no_answer", user=user, passage_spaces=[])
    publish(world.a, "Canteen menu", "# Canteen\n\nSoup on Mondays.\n", world.editor_a)
    row = _row(_insights(client, world.editor_a), PARKING_QUESTION)
    assert "possibly fixed" not in row


def test_only_the_first_groups_are_checked_and_retrieval_runs_once_per_group(no_embeddings, world, monkeypatch):
    for n in range(fixes.MAX_CHECKED + 5):
        AskLog.objects.create(
            question=f"zorblax question number {n}",
            mode="no_answer",
            passage_spaces=[world.a.pk],
            passage_pages=[world.rooftop.pk],
        )
    page_save(page=world.rooftop, title="Rooftop", body=ROOFTOP + "\nMore benches.\n", author=world.editor_a)
    calls: list[str] = []
    monkeypatch.setattr(fixes, "_top_pages", lambda text, user: calls.append(text) or [])
    groups = unanswered(insights_scope(world.editor_a))
    assert len(groups) == fixes.MAX_CHECKED + 5
    assert len(calls) == fixes.MAX_CHECKED == len(set(calls))
    assert all(g.fix is None for g in groups)
