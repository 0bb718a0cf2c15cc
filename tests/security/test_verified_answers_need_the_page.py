"""Verified answers are shown to an editor, and changed by one, only on pages that editor may read.

An editor of a space is not a reader of every page in it: a page restricted to one of the space's
editor groups is a 404 for the others. Its verified answers (the question, the page title, the
quotes) must be as absent for them as the page, on the verify page and in Insights, and a POST on
one (withdraw, verify again) must answer like a verified answer that does not exist. The same holds
for every editor once the page is deleted. A gap ("the handbook does not say this") has no page: it
stays with the editors of its space.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from handbook.approvals.services import space_set_approval
from handbook.services import page_delete, page_save
from search.models import VerifiedAnswer
from search.verified.selectors import picker_sections, verified_for_question
from search.verified.services import VerifyError, mark_not_in_handbook, verify_again, verify_answer, withdraw
from search.verified.wording import unit_hash

pytestmark = pytest.mark.django_db

QUESTION = "how much is the relocation bonus"
SECRET = "# Executive relocation\n\nThe CFO relocation bonus is 250000 euros.\n"
OPEN = "# Desk setup\n\nEvery new starter gets two screens on their first day.\n"


@pytest.fixture
def onboarding(make_user, make_space, make_page, no_embeddings) -> Any:  # type: ignore[no-untyped-def]
    """onboarding is edited by hr and it and reviewed by hr; its relocation page is restricted to hr."""
    space = make_space("onboarding", viewers=("staff",), editors=("hr", "it"))
    space_set_approval(space=space, requires_review=True, reviewer_group=Group.objects.get(name="hr"))
    secret = make_page(space, "Executive relocation", SECRET, restricted_to=("hr",), index=False)
    desk = make_page(space, "Desk setup", OPEN, index=False)
    alice = make_user("alice", "staff", "hr")
    chloe = make_user("chloe", "staff", "it")
    return SimpleNamespace(space=space, secret=secret, desk=desk, alice=alice, chloe=chloe)


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _verify(editor: Any, page: Any, question: str, starts: str) -> VerifiedAnswer:
    units = [u for section in picker_sections(page) for _h, u in section.units]
    text = next(u.text for u in units if u.text.startswith(starts))
    return verify_answer(editor=editor, question=question, page=page, unit_hashes=[unit_hash(text)])


def _verify_page(user: Any, question: str = QUESTION) -> str:
    response = _client(user).get("/ask/verify/", {"q": question})
    assert response.status_code == 200
    return response.content.decode()


def _state(pk: int) -> tuple[Any, ...] | None:
    return VerifiedAnswer.objects.filter(pk=pk).values_list("revision_id", "units", "editor_id", "verified_at").first()


def test_premise_the_editor_cannot_read_the_restricted_page(onboarding):
    assert _client(onboarding.chloe).get(onboarding.secret.get_absolute_url()).status_code == 404
    assert _client(onboarding.alice).get(onboarding.secret.get_absolute_url()).status_code == 200


def test_the_verify_page_shows_an_editor_no_answer_on_a_page_they_cannot_read(onboarding):
    """GIVEN alice (hr) verified the answer on the page restricted to hr
    WHEN chloe (it, an editor of the space) opens the verify page for that question
    THEN nothing of it appears: no "already recorded", no title, no quote; alice still sees it."""
    _verify(onboarding.alice, onboarding.secret, QUESTION, "The CFO")
    seen = _verify_page(onboarding.alice)
    assert "Already recorded for this question" in seen and "250000 euros" in seen
    body = _verify_page(onboarding.chloe)
    assert "Already recorded for this question" not in body
    assert "250000" not in body and "Executive relocation" not in body
    assert verified_for_question(onboarding.chloe, QUESTION) == []


def test_an_editor_still_sees_answers_on_pages_they_may_read(onboarding):
    question = "how many screens do new starters get"
    verified = _verify(onboarding.alice, onboarding.desk, question, "Every new starter")
    assert [v.pk for v in verified_for_question(onboarding.chloe, question)] == [verified.pk]
    assert "two screens" in _verify_page(onboarding.chloe, question)


def test_a_post_on_an_answer_the_editor_cannot_read_is_a_404_and_changes_nothing(onboarding):
    verified = _verify(onboarding.alice, onboarding.secret, QUESTION, "The CFO")
    before = _state(verified.pk)
    missing = max(VerifiedAnswer.objects.values_list("pk", flat=True)) + 1000
    chloe = _client(onboarding.chloe)
    for action in ("withdraw", "again"):
        assert chloe.post(f"/ask/verified/{missing}/", {"action": action}).status_code == 404
        assert chloe.post(f"/ask/verified/{verified.pk}/", {"action": action}).status_code == 404
        assert _state(verified.pk) == before


def test_the_services_refuse_an_answer_the_editor_cannot_read(onboarding):
    """The views are not the only callers: the writes filter the row themselves."""
    verified = _verify(onboarding.alice, onboarding.secret, QUESTION, "The CFO")
    before = _state(verified.pk)
    for change in (withdraw, verify_again):
        with pytest.raises(VerifyError):
            change(editor=onboarding.chloe, verified=verified)
    assert _state(verified.pk) == before


def test_an_answer_on_a_deleted_page_is_gone_for_every_editor(onboarding):
    verified = _verify(onboarding.alice, onboarding.secret, QUESTION, "The CFO")
    before = _state(verified.pk)
    page_delete(page=onboarding.secret)
    body = _verify_page(onboarding.alice)
    assert "Already recorded for this question" not in body and "250000" not in body
    alice = _client(onboarding.alice)
    for action in ("withdraw", "again"):
        assert alice.post(f"/ask/verified/{verified.pk}/", {"action": action}).status_code == 404
    assert _state(verified.pk) == before


def test_a_gap_stays_with_the_editors_of_its_space(onboarding):
    question = "can I bring my dog to the office"
    gap = mark_not_in_handbook(editor=onboarding.alice, question=question, space=onboarding.space)
    assert "Already recorded for this question" in _verify_page(onboarding.chloe, question)
    response = _client(onboarding.chloe).post(f"/ask/verified/{gap.pk}/", {"action": "withdraw"})
    assert response.status_code == 302 and not VerifiedAnswer.objects.filter(pk=gap.pk).exists()


def test_insights_lists_no_answer_on_a_page_the_editor_cannot_read(onboarding):
    """A changed page puts its verified answer on Insights for the editors who may read it only."""
    _verify(onboarding.alice, onboarding.secret, QUESTION, "The CFO")
    page_save(
        page=onboarding.secret,
        title="Executive relocation",
        body=SECRET + "\nPaid in two parts.\n",
        author=onboarding.alice,
        publish=True,
    )
    alice = _client(onboarding.alice).get("/insights/").content.decode()
    assert "Executive relocation" in alice and QUESTION in alice
    chloe = _client(onboarding.chloe).get("/insights/").content.decode()
    assert "Executive relocation" not in chloe and QUESTION not in chloe
    assert "0 verified answers on pages you edit" in chloe
