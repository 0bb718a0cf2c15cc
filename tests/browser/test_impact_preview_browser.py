"""The impact preview in a real browser: an editor with a saved draft opens the panel from the
editor, sees the logged question's answer change, and readers still get the published text (the
preview ran against a real, committed database and rolled its publication back); on the demo
handbook, alice's edit of Télétravail as she, its reviewer and an editor who may not read every
cited page see it. No console or CSP error (the ``watched`` fixture)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import log_in, log_in_as
from tests.browser.editor import editor_fill
from tests.impact_fixtures import DAYS, DRAFT, REMOTE, log_asks

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def drafted(make_user, make_space, make_page) -> Any:
    from handbook.services import page_save
    from search.insights.visibility import MIN_ASKERS

    space = make_space("people", viewers=("staff",), editors=("editors",))
    page = make_page(space, "Remote work", REMOTE, ref="remote-work")
    editor = make_user("ed", "staff", "editors")
    make_user("reader", "staff")
    log_asks(DAYS, [make_user(f"asker{n}", "staff") for n in range(MIN_ASKERS)], [page])
    page_save(page=page, title=page.title, body=DRAFT, author=editor, publish=False)
    return page


def test_an_editor_previews_the_answers_a_draft_changes_and_readers_see_nothing_of_it(watched, live_server, drafted):
    page, base = watched.page, live_server.url
    log_in_as(page, base, "ed")
    page.goto(f"{base}/spaces/people/remote-work/edit/")
    page.get_by_role("link", name="Preview the answers this changes").click()
    panel = page.locator("#impact-panel-2")
    expect(panel).to_contain_text(DAYS, timeout=30_000)
    expect(panel.locator(".impact__row--changes")).to_contain_text("2 days a week")
    expect(panel.locator(".impact__row--changes")).to_contain_text("3 days a week")
    expect(panel).not_to_contain_text("asker0")
    assert page.url.endswith("/spaces/people/remote-work/edit/")  # loaded into the editor, not a new page

    log_in_as(page, base, "reader")
    page.goto(f"{base}/spaces/people/remote-work/")
    expect(page.locator("main")).to_contain_text("2 days a week")
    expect(page.locator("main")).not_to_contain_text("3 days a week")


# The demo's Télétravail page: alice raises the remote days from 2 to 3 a week and adds a section.
TWO_DAYS = "Jusqu'à **2 jours de télétravail par semaine**"
THREE_DAYS = "Jusqu'à **3 jours de télétravail par semaine**"
COWORKING = (
    "\n### Coworking\n\nUn espace de coworking proche de chez vous est payé par Nordlys jusqu'à 100 € par mois.\n"
)
HOW_MANY = "Combien de jours de télétravail par semaine ?"  # "how many days of remote work a week?"
LIMIT = "Quelle est la limite de télétravail ?"  # verified on the "2 days" sentence
COWORKING_Q = "Qu'est-ce que le coworking ?"  # no page answers it yet
SALARY_Q = "Les salariés en télétravail ont-ils une grille salariale différente ?"  # reached an HR-only page


@pytest.fixture
def demo_edit(make_user) -> Any:
    """The demo handbook; the People space reviewed by rita; paul, who edits People pages but may not
    read HR-confidential ones; questions logged as Ask logs them, by enough people to be listed."""
    from django.contrib.auth.models import Group, User
    from django.core.management import call_command

    from handbook.approvals.services import space_set_approval
    from handbook.models import Page, Space
    from search.insights.visibility import MIN_ASKERS
    from search.verified.services import verify_answer
    from search.verified.wording import unit_hash
    from statements.answer_units import page_units

    call_command("seed_demo", verbosity=0)
    people = Space.objects.get(slug="people")
    page = Page.objects.get(ref="demo:people/teletravail")
    salary = Page.objects.get(ref="demo:hr-confidential/grilles-salariales")
    assert TWO_DAYS in page.body and COWORKING_Q not in page.body
    make_user("rita", "staff", "hr", "people-reviewers")
    space_set_approval(space=people, requires_review=True, reviewer_group=Group.objects.get(name="people-reviewers"))
    make_user("paul", "staff", "people-editors")
    people.editor_groups.add(Group.objects.get(name="people-editors"))
    askers = [make_user(f"asker{n}", "staff", "hr") for n in range(MIN_ASKERS)]
    logged = [
        (HOW_MANY, [page], "extractive"),
        (SALARY_Q, [page, salary], "extractive"),
        (COWORKING_Q, [], "no_answer"),
    ]
    for question, pages, mode in logged:
        log_asks(question, askers, pages, mode)
    alice = User.objects.get(username="alice")
    two = [unit_hash(u.text) for u in page_units(page.body) if "2 jours de télétravail" in u.text]
    verify_answer(editor=alice, question=LIMIT, page=page, unit_hashes=two)
    return page


def _preview(page: Any, url: str) -> Any:
    """Open ``url`` and load its impact panel: the panel, once its rows are in."""
    page.goto(url)
    page.get_by_role("link", name="Preview the answers this changes").click()
    panel = page.locator(".impact-panel #impact-preview")
    expect(panel).to_be_visible(timeout=90_000)
    return panel


def test_alice_previews_her_teletravail_edit_and_her_reviewer_sees_the_same(watched, live_server, demo_edit):
    page, base = watched.page, live_server.url
    edited = demo_edit.body.replace(TWO_DAYS, THREE_DAYS) + COWORKING
    log_in(page, base, "alice", "alice-demo")
    page.goto(f"{base}/spaces/people/teletravail/edit/")
    editor_fill(page, edited)
    page.get_by_role("button", name="Send for review").click()
    expect(page.locator(".messages")).to_contain_text("Sent for review")
    demo_edit.refresh_from_db()
    assert TWO_DAYS in demo_edit.body  # not published: waiting for rita

    panel = _preview(page, f"{base}/spaces/people/teletravail/edit/")
    changed = panel.locator(".impact__row--changes", has_text=HOW_MANY)
    expect(changed).to_contain_text("2 jours de télétravail par semaine")
    expect(changed).to_contain_text("3 jours de télétravail par semaine")
    expect(panel.locator(".impact__row--verified_stale")).to_contain_text(LIMIT)
    answered = panel.locator(".impact__row--now_answered", has_text=COWORKING_Q)
    expect(answered).to_contain_text("no answer")
    expect(answered).to_contain_text("coworking proche de chez vous")
    expect(panel).to_contain_text(SALARY_Q)  # alice may read every page it reached
    expect(panel).not_to_contain_text("asker0")
    seen_by_alice = panel.inner_text()

    log_in_as(page, base, "rita")
    reviewed = _preview(page, f"{base}/spaces/people/teletravail/approval/")
    expect(reviewed.locator(".impact__row--changes", has_text=HOW_MANY)).to_contain_text("3 jours")
    assert reviewed.inner_text() == seen_by_alice

    log_in_as(page, base, "paul")  # edits People pages, may not read HR-confidential ones
    limited = _preview(page, f"{base}/spaces/people/teletravail/edit/")
    expect(limited.locator(".impact__row--changes", has_text=HOW_MANY)).to_contain_text("3 jours")
    expect(limited).not_to_contain_text(SALARY_Q)
    expect(limited).not_to_contain_text("Grilles salariales")
    assert "grille" not in limited.inner_text().lower()
