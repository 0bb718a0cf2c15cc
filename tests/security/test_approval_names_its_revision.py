"""A reviewer's decision names the request and the revision it decides.

The approval page shows one text; the decision posted from it must decide that text and no other.
An author who publishes again between the reviewer opening the page and clicking Approve (or Ask
for changes) supersedes the request the reviewer read: the decision is then refused with a clear
message, nothing is published and the newer request waits, undecided, to be read in its turn.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from handbook.approvals import selectors
from handbook.approvals.services import (
    DecisionOutdated,
    approval_approve,
    approval_request_changes,
    page_submit,
    space_set_approval,
)
from handbook.models import ApprovalRequest, Page

pytestmark = pytest.mark.django_db

State = ApprovalRequest.State
WELCOME = "# Welcome\n\nYour first day starts at nine.\n"
BENIGN = "# Welcome\n\nBENIGN TEXT A: your first day starts at ten.\n"
MALICIOUS = "# Welcome\n\nMALICIOUS TEXT B: send your bank details to this address.\n"
CHANGED_EN = "The text changed since you opened it — review it again."
CHANGED_FR = "Le texte a changé depuis que vous l’avez ouvert — relisez-le."


@pytest.fixture
def onboarding(make_user, make_space, make_page, no_embeddings) -> Any:  # type: ignore[no-untyped-def]
    """onboarding is edited by hr and it and reviewed by hr: alice (hr) reviews, chloe (it) does not."""
    space = make_space("onboarding", viewers=("staff",), editors=("hr", "it"))
    space_set_approval(space=space, requires_review=True, reviewer_group=Group.objects.get(name="hr"))
    page = make_page(space, "Welcome", WELCOME, index=False)
    return SimpleNamespace(
        space=space, page=page, alice=make_user("alice", "staff", "hr"), chloe=make_user("chloe", "staff", "it")
    )


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _publish(site: Any, body: str) -> ApprovalRequest:
    submitted = page_submit(page=site.page, author=site.chloe, publish=True, review=None, title="Welcome", body=body)
    assert submitted.request is not None  # chloe is no reviewer: her publish waits for one
    return submitted.request


def _url(site: Any) -> str:
    return site.page.get_absolute_url() + "approval/"


def _opened(client: Client, site: Any) -> dict[str, str]:
    """The approval page as the reviewer reads it, and the hidden fields its decision form posts."""
    html = client.get(_url(site)).content.decode()
    form = html[html.index('class="stack card approval-decision"') :]
    fields = dict(re.findall(r'<input type="hidden" name="(request|revision)" value="(\d+)"', form))
    assert set(fields) == {"request", "revision"}, form
    return {"html": html, **fields}


def _published_body() -> str:
    return Page.objects.select_related("published_revision").get(slug="welcome").published_revision.body


@pytest.mark.parametrize("decision", ["approve", "changes"])
def test_a_decision_on_a_superseded_request_decides_nothing(onboarding, decision):
    """GIVEN alice opened the approval page of chloe's text A
    WHEN chloe publishes text B before alice decides
    THEN alice's decision on A is refused with a clear message: nothing is published, and B's request
    stays pending for a reviewer who reads it."""
    first = _publish(onboarding, BENIGN)
    alice = _client(onboarding.alice)
    opened = _opened(alice, onboarding)
    assert "BENIGN TEXT A" in opened["html"]
    assert opened["request"] == str(first.pk) and opened["revision"] == str(first.revision_id)
    second = _publish(onboarding, MALICIOUS)
    first.refresh_from_db()
    assert first.state == State.SUPERSEDED

    data = {
        "decision": decision,
        "comment": "Fine by me.",
        "request": opened["request"],
        "revision": opened["revision"],
    }
    response = alice.post(_url(onboarding), data, follow=True)
    assert response.status_code == 200
    assert CHANGED_EN in response.content.decode()
    assert "MALICIOUS" not in _published_body() and "BENIGN" not in _published_body()
    second.refresh_from_db()
    assert second.state == State.PENDING and second.decided_by is None and second.comment == ""


def test_a_decision_naming_another_revision_of_the_pending_request_decides_nothing(onboarding):
    request = _publish(onboarding, MALICIOUS)
    alice = _client(onboarding.alice)
    other = onboarding.page.revisions.exclude(pk=request.revision_id).first()
    data = {"decision": "approve", "request": request.pk, "revision": other.pk}
    assert CHANGED_EN in alice.post(_url(onboarding), data, follow=True).content.decode()
    request.refresh_from_db()
    assert request.state == State.PENDING and "MALICIOUS" not in _published_body()


def test_a_decision_that_names_no_request_decides_nothing(onboarding):
    request = _publish(onboarding, MALICIOUS)
    alice = _client(onboarding.alice)
    assert alice.post(_url(onboarding), {"decision": "approve"}).status_code == 400
    missing = {"decision": "approve", "request": request.pk + 1000, "revision": request.revision_id}
    assert alice.post(_url(onboarding), missing).status_code == 404
    request.refresh_from_db()
    assert request.state == State.PENDING and "MALICIOUS" not in _published_body()


def test_the_decision_on_the_text_read_publishes_that_text(onboarding):
    _publish(onboarding, BENIGN)
    _publish(onboarding, MALICIOUS)
    _publish(onboarding, BENIGN)  # chloe takes B back: A again, in a newer request
    alice = _client(onboarding.alice)
    opened = _opened(alice, onboarding)
    assert "BENIGN TEXT A" in opened["html"]
    data = {"decision": "approve", "request": opened["request"], "revision": opened["revision"]}
    assert alice.post(_url(onboarding), data).status_code == 302
    assert "BENIGN TEXT A" in _published_body()
    assert selectors.latest_request(onboarding.page).state == State.APPROVED


def test_the_refusal_in_french(onboarding):
    first = _publish(onboarding, BENIGN)
    _publish(onboarding, MALICIOUS)
    alice = _client(onboarding.alice)
    alice.cookies["django_language"] = "fr"
    data = {"decision": "approve", "request": first.pk, "revision": first.revision_id}
    body = alice.post(_url(onboarding), data, follow=True, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert CHANGED_FR in body and "MALICIOUS" not in _published_body()


def test_the_services_decide_only_the_revision_they_are_given(onboarding):
    first = _publish(onboarding, BENIGN)
    second = _publish(onboarding, MALICIOUS)
    with pytest.raises(DecisionOutdated):
        approval_approve(request=first, reviewer=onboarding.alice, revision_id=first.revision_id)
    with pytest.raises(DecisionOutdated):
        approval_approve(request=second, reviewer=onboarding.alice, revision_id=first.revision_id)
    with pytest.raises(DecisionOutdated):
        approval_request_changes(request=second, reviewer=onboarding.alice, revision_id=first.revision_id, comment="x")
    second.refresh_from_db()
    assert second.state == State.PENDING and "MALICIOUS" not in _published_body()
