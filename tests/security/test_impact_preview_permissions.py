"""The impact preview shows a draft only to those who may edit its page, and asked questions only
the way Insights does: never who asked, only once several people asked, only to someone who may
read every page the question reached."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Group, User

from accounts.services import token_create
from handbook.approvals.services import approval_request_open, space_set_approval
from handbook.models import Page
from handbook.services import page_save
from search.impact.preview import CHANGES, impact_preview
from search.insights.visibility import MIN_ASKERS
from tests.impact_fixtures import DAYS, DRAFT, REMOTE, log_asks

SALARY = "# Salary bands\n\nCANARY-SALARY-4410: band E3 pays 61,000 euros for remote workers.\n"
SECRET = "Do remote workers in band E3 get paid less?"
FEW = "Can I work from home on Fridays?"


@pytest.fixture
def world(no_embeddings, make_space, make_page, make_user):
    people = make_space("people", viewers=("staff",), editors=("editors",))
    hr = make_space("hr", viewers=("hr",), editors=("hr-editors",))
    remote = make_page(people, "Remote work", REMOTE, ref="remote-work")
    salary = make_page(hr, "Salary bands", SALARY, ref="salary")
    editor = make_user("ed", "staff", "editors")
    hr_editor = make_user("hred", "staff", "editors", "hr")
    reader = make_user("reader", "staff")
    askers = [make_user(f"asker{n}", "staff", "hr") for n in range(MIN_ASKERS)]
    log_asks(DAYS, askers, [remote])
    log_asks(SECRET, askers, [remote, salary])  # reached a page only HR may read
    log_asks(FEW, askers[: MIN_ASKERS - 1], [remote])  # too few people to show
    draft = page_save(page=remote, title="Remote work", body=DRAFT, author=editor, publish=False).revision
    return {"remote": remote, "editor": editor, "hr_editor": hr_editor, "reader": reader, "draft": draft}


def _url(page: Page, query: str = "") -> str:
    return f"/spaces/{page.space.slug}/{page.slug}/impact/" + (f"?{query}" if query else "")


@pytest.mark.django_db
def test_a_question_that_reached_a_page_the_editor_cannot_read_is_not_shown(world, client):
    page, draft = world["remote"], world["draft"]
    shown = {row.question for row in impact_preview(user=world["editor"], page=page, revision=draft).rows}
    assert DAYS in shown and SECRET not in shown
    client.force_login(world["editor"])
    body = client.get(_url(page)).content.decode()
    assert DAYS in body and SECRET not in body and "CANARY-SALARY" not in body
    # Not vacuous: an editor who may read both pages sees it.
    both = {row.question for row in impact_preview(user=world["hr_editor"], page=page, revision=draft).rows}
    assert SECRET in both


@pytest.mark.django_db
def test_questions_fewer_people_asked_and_who_asked_are_never_shown(world, client):
    preview = impact_preview(user=world["editor"], page=world["remote"], revision=world["draft"])
    assert FEW not in {row.question for row in preview.rows}
    client.force_login(world["editor"])
    body = client.get(_url(world["remote"]), HTTP_HX_REQUEST="true").content.decode()
    assert DAYS in body and FEW not in body
    assert "asker0" not in body and "<html" not in body  # a fragment for htmx
    assert "3 days a week" in body


@pytest.mark.django_db
@pytest.mark.parametrize("which", ["readable", "unreadable"])
def test_a_person_who_cannot_edit_the_page_gets_what_a_missing_page_gets(world, client, which):
    page = world["remote"]
    client.force_login(world["reader"])
    missing = client.get(f"/spaces/{page.space.slug}/no-such-page/impact/")
    target = _url(page) if which == "readable" else "/spaces/hr/salary-bands/impact/"
    response = client.get(target)
    assert response.status_code == missing.status_code == 404
    assert "3 days a week" not in response.content.decode()
    assert client.get(_url(page, "revision=2")).status_code == 404


@pytest.mark.django_db
def test_an_editor_asking_for_a_revision_that_does_not_exist_gets_404(world, client):
    client.force_login(world["editor"])
    assert client.get(_url(world["remote"], "revision=99")).status_code == 404
    assert client.get(_url(world["remote"], "revision=x")).status_code == 404
    assert client.get(_url(world["remote"], "revision=2")).status_code == 200


@pytest.mark.django_db
def test_the_api_previews_for_editors_and_answers_404_to_anyone_else(world, client):
    page = world["remote"]

    def get(user: User, query: str):
        secret = token_create(user=user, name="impact", scope="read", days=1).secret
        return client.get(f"/api/v1/impact?{query}", HTTP_AUTHORIZATION=f"Bearer {secret}")

    response = get(world["editor"], "ref=remote-work&revision=2")
    assert response.status_code == 200, response.content
    data = json.loads(response.content)
    rows = {row["question"]: row for row in data["rows"]}
    assert rows[DAYS]["mark"] == CHANGES and "3 days a week" in rows[DAYS]["after"]["lead"]
    assert SECRET not in rows and FEW not in rows and data["revision"] == 2
    missing = get(world["reader"], "ref=no-such-ref")
    refused = get(world["reader"], "ref=remote-work&revision=2")
    assert missing.status_code == refused.status_code == 404
    assert missing.content == refused.content
    assert page.revisions.count() == 2


@pytest.mark.django_db
def test_the_edit_and_review_pages_offer_the_preview_of_their_revision(world, client):
    page, editor = world["remote"], world["editor"]
    link = _url(page, "revision=2")
    client.force_login(editor)
    edit = client.get(f"/spaces/people/{page.slug}/edit/").content.decode()
    assert "Preview the answers this changes" in edit and f'hx-get="{link}"' in edit
    space_set_approval(space=page.space, requires_review=True, reviewer_group=Group.objects.get(name="editors"))
    assert approval_request_open(page=page, requested_by=editor) is not None
    review = client.get(f"/spaces/people/{page.slug}/approval/").content.decode()
    assert f'href="{link}"' in review
    # A page with nothing unpublished offers nothing to preview.
    page_save(page=page, title=page.title, body=DRAFT, author=editor, publish=True)
    assert "Preview the answers this changes" not in client.get(f"/spaces/people/{page.slug}/edit/").content.decode()


@pytest.mark.django_db
def test_a_preview_counts_as_one_of_the_persons_questions(world, client, settings):
    settings.ASK_RATE_LIMIT = "1/m"
    client.force_login(world["editor"])
    assert client.get(_url(world["remote"])).status_code == 200
    limited = client.get(_url(world["remote"]), HTTP_HX_REQUEST="true")
    assert limited.status_code == 200 and "too quickly" in limited.content.decode()  # shown in the panel
    assert client.get(_url(world["remote"])).status_code == 429
