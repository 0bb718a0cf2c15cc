"""The impact preview (search/impact/): before publishing, the answers an edit changes, as they will be."""

from __future__ import annotations

import contextlib
import hashlib

import pytest
from django.core.cache import cache

from handbook.services import page_publish, page_save
from search.ask.answers import answer_question
from search.embedding.embedders import get_embedder
from search.impact import preview as preview_module
from search.impact import sandbox
from search.impact.preview import (
    CHANGES,
    NOW_ANSWERED,
    UNCHANGED,
    VERIFIED_STALE,
    Outcome,
    answer_for_preview,
    impact_preview,
)
from search.insights.visibility import MIN_ASKERS
from search.models import AskLog, Chunk
from search.verified.services import verify_answer
from search.verified.wording import unit_hash
from statements.answer_units import page_units

REMOTE = """# Remote work

Staff may work from home 2 days a week, agreed with their manager.

## Equipment

The company lends every remote worker a laptop and a second monitor.
"""

# The edit: the days change, the equipment sentence is reworded, a section about the gym is added.
REMOTE_DRAFT = """# Remote work

Staff may work from home 3 days a week, agreed with their manager.

## Equipment

Remote workers get a laptop; monitors are bought with the home office budget.

## Gym allowance

Every employee gets a gym allowance of 40 euros a month, paid with the salary.
"""

DAYS = "How many days a week can I work from home?"
GYM = "Is there a gym allowance for employees?"
LAPTOP = "Does the company lend a laptop for remote work?"


@pytest.fixture
def remote(make_space, make_page, make_user):
    """A remote-work page, asked about by enough people, with a verified answer and a gap."""
    space = make_space("people", viewers=("staff",), editors=("editors",))
    page = make_page(space, "Remote work", REMOTE, ref="remote-work")
    make_page(space, "Expenses", "# Expenses\n\nTravel is booked through the travel desk.\n", ref="expenses")
    editor = make_user("ed", "staff", "editors")
    askers = [make_user(f"asker{n}", "staff") for n in range(MIN_ASKERS)]
    for asker in askers:
        for question in (DAYS, GYM):
            answer_question(user=asker, question=question, rate_limit=False, use_cache=False, use_llm=False)
    units = [u for u in _units(REMOTE) if "laptop" in u]
    verify_answer(editor=editor, question=LAPTOP, page=page, unit_hashes=[unit_hash(u) for u in units])
    draft = page_save(page=page, title="Remote work", body=REMOTE_DRAFT, author=editor, publish=False).revision
    return {"page": page, "editor": editor, "draft": draft, "askers": askers}


def _units(markdown: str) -> list[str]:
    return [u.text for u in page_units(markdown)]


def _row(preview, question):
    found = [row for row in preview.rows if row.question == question]
    assert len(found) == 1, [r.question for r in preview.rows]
    return found[0]


def _chunks(page) -> list[tuple]:
    return list(
        Chunk.objects.filter(page=page)
        .order_by("id")
        .values_list("id", "revision_id", "ordinal", "text", "content_hash", "embedding_model", "search_vector")
    )


@pytest.mark.django_db
def test_the_logged_question_is_previewed_changing_from_two_days_to_three(remote):
    assert AskLog.objects.filter(question=DAYS).exclude(mode="no_answer").count() == MIN_ASKERS
    preview = impact_preview(user=remote["editor"], page=remote["page"], revision=remote["draft"])
    row = _row(preview, DAYS)
    assert row.mark == CHANGES
    assert "2 days a week" in row.before.lead and row.before.title == "Remote work"
    assert "3 days a week" in row.after.lead and row.after.ref == "remote-work"
    assert (row.askers, row.times) == (MIN_ASKERS, MIN_ASKERS)


@pytest.mark.django_db
def test_a_verified_answer_whose_units_leave_the_page_goes_stale(remote):
    preview = impact_preview(user=remote["editor"], page=remote["page"], revision=remote["draft"])
    row = _row(preview, LAPTOP)
    assert row.verified and row.mark == VERIFIED_STALE
    assert "laptop" in row.before.lead and row.after is None


@pytest.mark.django_db
def test_an_unanswered_question_the_new_text_answers_is_now_answered(remote):
    assert set(AskLog.objects.filter(question=GYM).values_list("mode", flat=True)) == {"no_answer"}
    preview = impact_preview(user=remote["editor"], page=remote["page"], revision=remote["draft"])
    row = _row(preview, GYM)
    assert row.mark == NOW_ANSWERED
    assert not row.before.answered and "gym allowance" in row.after.lead


@pytest.mark.parametrize(
    "committed",
    [
        pytest.param(False, marks=pytest.mark.django_db),
        # Outside a transaction the "now" answers run beside the draft's, on their own connection.
        pytest.param(True, marks=pytest.mark.django_db(transaction=True)),
    ],
)
def test_the_preview_tells_the_truth_and_writes_nothing(
    remote, django_capture_on_commit_callbacks, committed, monkeypatch
):
    """GIVEN a draft previewed WHEN it is then published THEN each previewed "after" answer is the
    answer Ask gives (same text, same quotes, same pages), and the preview itself wrote nothing."""
    page, editor = remote["page"], remote["editor"]
    beside = []
    own_connection = preview_module._on_own_connection
    monkeypatch.setattr(preview_module, "_on_own_connection", lambda *a: beside.append(1) or own_connection(*a))
    chunks, logs = _chunks(page), AskLog.objects.count()
    preview = impact_preview(user=editor, page=page, revision=remote["draft"])
    page.refresh_from_db()
    assert _chunks(page) == chunks and AskLog.objects.count() == logs
    assert page.published_revision.number == 1 and "2 days a week" in page.body
    asked = [row for row in preview.rows if not row.verified]
    assert {row.question for row in asked} == {DAYS, GYM}
    assert bool(beside) == committed

    with django_capture_on_commit_callbacks(execute=True):
        page_publish(page=page, revision=remote["draft"], author=editor)
    for row in asked:
        published = answer_for_preview(editor, row.question)
        assert published is not None and row.after is not None
        assert published.same_answer(row.after), row.question
        assert published.citations == row.after.citations


@pytest.mark.django_db
def test_nothing_of_the_draft_reaches_the_shared_cache(remote, monkeypatch):
    """Sentence vectors of the draft's new text are computed during the preview, and kept in it."""
    page, editor, draft = remote["page"], remote["editor"], remote["draft"]
    embedder = get_embedder()
    assert embedder is not None
    new = [u for u in _units(REMOTE_DRAFT) if "gym allowance" in u]
    keys = ["sentvec:" + hashlib.sha256(f"{embedder.model_name}\n{s}".encode()).hexdigest() for s in new]
    cache.delete_many(keys)
    impact_preview(user=editor, page=page, revision=draft)
    assert cache.get_many(keys) == {}
    # Not vacuous: without the preview's own cache, the same preview writes them.
    monkeypatch.setattr(sandbox, "cache_writes_kept", contextlib.nullcontext)
    impact_preview(user=editor, page=page, revision=draft)
    assert set(cache.get_many(keys)) == set(keys)
    cache.delete_many(keys)


@pytest.mark.django_db
def test_an_unchanged_draft_changes_no_answer(remote):
    page, editor = remote["page"], remote["editor"]
    same = page_save(page=page, title="Remote work", body=REMOTE, author=editor, publish=False).revision
    preview = impact_preview(user=editor, page=page, revision=same)
    assert {row.mark for row in preview.rows} == {UNCHANGED}


@pytest.mark.django_db
def test_the_limit_counts_the_rest(remote):
    preview = impact_preview(user=remote["editor"], page=remote["page"], revision=remote["draft"], limit=1)
    assert len([row for row in preview.rows if not row.verified]) == 1
    assert preview.not_previewed == 1


def test_outcomes_compare_text_and_quotes():
    a = Outcome("extractive", "“x” [1]", "x", "T", "r", "/u", (("r", "x"),))
    assert a.same_answer(Outcome("extractive", "“x” [1]", "x", "Other title", "r", "/v", (("r", "x"),)))
    assert not a.same_answer(Outcome("extractive", "“x” [1]", "x", "T", "r", "/u", (("s", "x"),)))


@pytest.mark.django_db
def test_the_text_being_edited_is_previewed_without_saving_it(remote):
    page, editor = remote["page"], remote["editor"]
    revisions = page.revisions.count()
    body = REMOTE.replace("2 days a week", "4 days a week")
    preview = impact_preview(user=editor, page=page, title="Remote work", body=body)
    row = _row(preview, DAYS)
    assert row.mark == CHANGES and "4 days a week" in row.after.lead
    assert page.revisions.count() == revisions
