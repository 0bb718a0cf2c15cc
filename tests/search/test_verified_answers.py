"""Verified answers: an editor picks the units that answer a question; Ask shows them first to
readers of the page who ask the same or a near question, and to no one else."""

from __future__ import annotations

from datetime import timedelta

import numpy as np
import pytest
from django.utils import timezone

from handbook.services import page_save
from search.ask.answers import answer_question
from search.models import VerifiedAnswer, VerifiedQuestion
from search.verified.selectors import picker_sections
from search.verified.services import VerifyError, mark_not_in_handbook, verify_again, verify_answer, withdraw
from search.verified.wording import unit_hash

TRAVEL = """# Travel

Book every trip through the travel desk at least two weeks ahead.

## Per diems

The daily allowance abroad is 60 euros per day, paid with the next salary.

Receipts are not needed for the daily allowance.
"""
SECRET = """# Board travel

Board members fly business class on flights longer than six hours.
"""


@pytest.fixture
def world(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    people = make_space("people", viewers=("staff",), editors=("editors",))
    board = make_space("board", viewers=("board",), editors=("board-editors",))
    return {
        "travel": make_page(people, "Travel", TRAVEL, ref="travel"),
        "board": make_page(board, "Board travel", SECRET, ref="board-travel"),
        "people": people,
        "board_space": board,
        "editor": make_user("erin", "staff", "editors"),
        "board_editor": make_user("bea", "board", "board-editors"),
        "reader": make_user("rob", "staff"),
    }


def _hash_of(page, starts: str) -> str:  # type: ignore[no-untyped-def]
    units = [u for section in picker_sections(page) for _h, u in section.units]
    return unit_hash(next(u.text for u in units if u.text.startswith(starts)))


def _ask(user, question):  # type: ignore[no-untyped-def]
    return answer_question(user=user, question=question, rate_limit=False, use_cache=False)


def _verify(world, question="How much is the daily allowance abroad?"):  # type: ignore[no-untyped-def]
    page = world["travel"]
    return verify_answer(
        editor=world["editor"], question=question, page=page, unit_hashes=[_hash_of(page, "The daily allowance")]
    )


@pytest.mark.django_db
def test_the_same_question_gets_the_verified_answer_first(world):
    verified = _verify(world)
    assert verified.units[0]["text"].startswith("The daily allowance abroad is 60 euros")
    answer = _ask(world["reader"], "how much is the daily allowance abroad")
    assert answer.verified is not None
    assert answer.verified.editor == "erin"
    assert [q.text for q in answer.verified.quotes] == [verified.units[0]["text"]]
    assert answer.verified.quotes[0].url.endswith("#per-diems")
    assert answer.as_json()["verified"]["verified_by"] == "erin"
    assert not answer.verified.changed


@pytest.mark.django_db
def test_a_near_wording_gets_it_and_is_remembered(world):
    verified = _verify(world)
    answer = _ask(world["reader"], "What is the daily allowance when travelling abroad?")
    assert answer.verified is not None and answer.verified.verified_id == verified.pk
    wordings = set(VerifiedQuestion.objects.filter(verified=verified).values_list("text", "asked"))
    assert ("What is the daily allowance when travelling abroad?", True) in wordings


@pytest.mark.django_db
def test_the_same_wording_wins_then_the_nearest_and_a_reader_s_wording_never_matches(world):
    """The lookup's one statement keeps the rules: an editor's same wording before any near one, the
    nearest near one next; the wordings readers typed are kept for editors, never matched."""
    page = world["travel"]
    allowance = _verify(world)
    booking = verify_answer(
        editor=world["editor"],
        question="How far ahead do I book a trip abroad?",
        page=page,
        unit_hashes=[_hash_of(page, "Book every trip")],
    )
    assert _ask(world["reader"], "how far ahead do I book a trip abroad").verified.verified_id == booking.pk
    assert _ask(world["reader"], "How much is the daily allowance abroad?").verified.verified_id == allowance.pk
    near = _ask(world["reader"], "What is the daily allowance when travelling abroad?")
    assert near.verified is not None and near.verified.verified_id == allowance.pk
    # That wording is now remembered (asked=True): alone, it matches nothing more.
    VerifiedQuestion.objects.filter(verified=allowance, asked=False).delete()
    assert _ask(world["reader"], "What is the daily allowance when travelling abroad?").verified is None


@pytest.mark.django_db
def test_another_question_on_the_same_page_does_not_get_it(world):
    _verify(world)
    assert _ask(world["reader"], "How early must I book a trip?").verified is None
    assert _ask(world["reader"], "Who approves my holidays?").verified is None


@pytest.mark.django_db
def test_a_reader_who_cannot_read_the_page_never_gets_it(world):
    page = world["board"]
    verify_answer(
        editor=world["board_editor"],
        question="Do board members fly business class?",
        page=page,
        unit_hashes=[_hash_of(page, "Board members")],
    )
    answer = _ask(world["reader"], "Do board members fly business class?")
    assert answer.verified is None
    assert "verified" in answer.as_json() and answer.as_json()["verified"] is None
    assert not VerifiedQuestion.objects.filter(asked=True).exists()  # nothing of theirs was remembered


@pytest.mark.django_db
def test_only_editors_of_the_page_verify(world):
    page = world["travel"]
    with pytest.raises(VerifyError):
        verify_answer(
            editor=world["reader"], question="Daily allowance?", page=page, unit_hashes=[_hash_of(page, "The")]
        )
    with pytest.raises(VerifyError):
        mark_not_in_handbook(editor=world["editor"], question="Board pay?", space=world["board_space"])
    with pytest.raises(VerifyError):  # a unit of another page, or nothing picked
        verify_answer(editor=world["editor"], question="Daily allowance?", page=page, unit_hashes=["0" * 16])
    assert not VerifiedAnswer.objects.exists()


@pytest.mark.django_db
def test_a_section_picks_its_units(world):
    page = world["travel"]
    verified = verify_answer(
        editor=world["editor"], question="Per diems?", page=page, unit_hashes=[], anchors=["per-diems"]
    )
    assert [row["text"][:20] for row in verified.units] == ["The daily allowance ", "Receipts are not nee"]


@pytest.mark.django_db
def test_page_changed_since_verified_then_drops_after_review_date(world):
    verified = _verify(world)
    page = world["travel"]
    page_save(
        page=page,
        title=page.title,
        body=TRAVEL + "\n## Taxis\n\nTaxis are refunded after 22:00.\n",
        author=world["editor"],
    )
    page.refresh_from_db()
    answer = _ask(world["reader"], "How much is the daily allowance abroad?")
    assert answer.verified is not None and answer.verified.changed
    assert answer.verified.quotes  # still quoted from the current text
    type(page).objects.filter(pk=page.pk).update(review_by=timezone.localdate() - timedelta(days=1))
    assert _ask(world["reader"], "How much is the daily allowance abroad?").verified is None
    verify_again(editor=world["editor"], verified=verified)
    again = _ask(world["reader"], "How much is the daily allowance abroad?").verified
    assert again is not None and not again.changed


@pytest.mark.django_db
def test_a_gap_is_recorded_and_never_answers(world):
    gap = mark_not_in_handbook(
        editor=world["editor"], question="Can I bring my dog to the office?", space=world["people"]
    )
    assert gap.kind == VerifiedAnswer.Kind.NOT_IN_HANDBOOK and gap.editor == world["editor"]
    assert _ask(world["reader"], "Can I bring my dog to the office?").verified is None


@pytest.mark.django_db
def test_verifying_again_replaces_and_withdraw_removes(world):
    first = _verify(world)
    second = _verify(world, "How much is the daily allowance abroad ?")  # the same question, folded
    assert not VerifiedAnswer.objects.filter(pk=first.pk).exists()
    withdraw(editor=world["editor"], verified=second)
    assert _ask(world["reader"], "How much is the daily allowance abroad?").verified is None


@pytest.mark.django_db
def test_a_hidden_verified_answer_changes_nothing_a_reader_sees(world):
    """The reader's whole reply (answer, citations, verified or not) is the same whether or not a
    verified answer exists on a page they cannot read, for the very question it answers."""
    question = "Do board members fly business class?"
    before = _ask(world["reader"], question).as_json()
    page = world["board"]
    verify_answer(
        editor=world["board_editor"], question=question, page=page, unit_hashes=[_hash_of(page, "Board members")]
    )
    after = _ask(world["reader"], question).as_json()
    assert after == before
    assert _ask(world["board_editor"], question).verified is not None  # it exists, for its readers


@pytest.mark.django_db
def test_a_stream_shows_the_verified_answer_before_the_text(world, client):
    from search.ask.answers import stream_answer

    _verify(world)
    events = list(stream_answer(user=world["reader"], question="How much is the daily allowance abroad?"))
    assert [e["type"] for e in events] == ["verified", "done"]
    assert events[1]["answer"].verified is not None
    client.force_login(world["reader"])
    body = b"".join(client.post("/ask/stream/", {"q": "How much is the daily allowance abroad?"}).streaming_content)
    assert body.startswith(b"event: verified\n") and b"Verified by erin" in body
    client.force_login(world["board_editor"])  # no verified answer they may read: no such event
    body = b"".join(client.post("/ask/stream/", {"q": "How much is the daily allowance abroad?"}).streaming_content)
    assert b"event: verified" not in body


@pytest.mark.django_db
def test_a_farther_wording_gets_it_when_it_finds_the_verified_sentence_nearest(world):
    """Between the related and the same-question similarity (both fitted for the model), a wording gets
    the verified answer only when, among Ask's passages, the unit nearest to it is the one verified: the
    other words for the same fact do, another question on the page does not, and without Ask's
    passages there is no second look."""
    from search.ask.passages import passages_for
    from search.decisions.same_question import related_threshold, similarity_threshold
    from search.verified.services import verified_for_asker

    verified = _verify(world)
    reader = world["reader"]
    retrieval, _passages = passages_for("How much is the daily allowance abroad?", reader)
    model = retrieval.embedder.model_name
    low, high = related_threshold(model), similarity_threshold(model)
    assert low < high

    def cosine(question: str) -> float:
        other, _ = passages_for(question, reader)
        a, b = np.asarray(retrieval.query_vector), np.asarray(other.query_vector)
        return float(a @ b / np.linalg.norm(a) / np.linalg.norm(b))

    other_words, other_fact = "per diem amount for trips outside the country", "how early should I book travel abroad"
    for question in (other_words, other_fact):
        assert low <= cosine(question) < high  # both in the band where the second look decides
    answer = _ask(reader, other_words)
    assert answer.verified is not None and answer.verified.verified_id == verified.pk
    assert not answer.verified.same_wording
    assert _ask(reader, other_fact).verified is None
    again, _ = passages_for(other_words, reader)
    assert verified_for_asker(reader, other_words, again.query_vector, again.embedder, remember=False) is None
