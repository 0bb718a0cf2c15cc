"""History for editors: the side-by-side diff, comparing any two revisions, drafts
labelled, Restore explained before it publishes, the summary's revision, restricted pages marked."""

from __future__ import annotations

import pytest

from handbook.diff import side_by_side
from handbook.services import page_restore, page_save
from tests.handbook.conftest import url

pytestmark = pytest.mark.django_db


# --- The diff, as data ------------------------------------------------------------------


def test_side_by_side_pairs_lines_and_marks_the_words_that_changed():
    diff = side_by_side("Intro\nStaff may work three days.\nEnd\n", "Intro\nStaff may work two days.\nEnd\nNew line\n")
    assert (diff.added, diff.removed) == (2, 1)
    changed = [row for row in diff.rows if row.kind == "change"]
    edited = changed[0]
    assert (edited.old.number, edited.new.number) == (2, 2)
    assert [p.text for p in edited.old.pieces if p.changed] == ["three"]
    assert [p.text for p in edited.new.pieces if p.changed] == ["two"]
    assert "".join(p.text for p in edited.new.pieces) == "Staff may work two days."
    added = changed[1]
    assert added.old.kind == "empty" and added.new.kind == "add" and added.new.number == 4


def test_long_unchanged_stretches_fold_into_one_row():
    old = "\n".join(f"line {n}" for n in range(1, 31))
    new = old.replace("line 15", "line fifteen")
    diff = side_by_side(old, new, context=3)
    gaps = [row.skipped for row in diff.rows if row.kind == "gap"]
    assert gaps == [11, 12]  # lines 1-11 and 19-30; three lines of context either side of line 15
    assert len(diff.rows) == 2 + 3 + 1 + 3


def test_identical_texts_have_no_diff():
    assert not side_by_side("same\n", "same\n")


def test_unrelated_lines_are_not_marked_word_by_word():
    diff = side_by_side("Apples are red.\n", "Completely different sentence here!\n")
    row = diff.rows[0]
    assert row.old.pieces[0].changed and len(row.old.pieces) == 1


# --- History, compare, restore --------------------------------------------------------


@pytest.fixture
def revisions(handbook):
    """Remote work at r1 (published), r2, r3 (published), then r4, a draft."""
    page = handbook.remote
    page_save(page=page, title="Remote work", body="Two days <b>at home</b>.", author=handbook.editor)
    page_save(page=page, title="Remote work", body="Three days at home.", author=handbook.editor)
    page_save(page=page, title="Remote work", body="Four days at home.", author=handbook.editor, publish=False)
    page.refresh_from_db()
    return page


def test_history_labels_the_published_revision_and_drafts(client, handbook, revisions):
    client.force_login(handbook.editor)
    html = client.get(url(revisions, "history")).content.decode()
    assert 'history__row--draft">' in html and 'history__row--published">' in html
    assert html.count("history__row--draft") == 1 and html.count("history__row--published") == 1
    # Restore is a link to the explanation, no longer a button that publishes at once.
    assert f'href="{url(revisions, "history/1/restore")}"' in html


def test_the_compare_form_opens_the_two_revisions_older_first(client, handbook, revisions):
    client.force_login(handbook.editor)
    response = client.get(url(revisions, "history"), {"from": "3", "to": "1"})
    assert response.status_code == 302
    assert response["Location"] == url(revisions, "history/3") + "?against=1"
    html = client.get(response["Location"]).content.decode()
    assert "Compared with revision 1" in html
    assert "diff__line--del" in html and "diff__line--add" in html
    assert "Two days" not in html  # r2 is not part of this comparison


def test_a_diff_escapes_the_text(client, handbook, revisions):
    client.force_login(handbook.editor)
    html = client.get(url(revisions, "history/2")).content.decode()
    assert "&lt;b&gt;at home&lt;/b&gt;" in html and "<b>at home</b>" not in html


def test_restore_explains_first_and_publishes_only_when_confirmed(client, handbook, revisions):
    client.force_login(handbook.editor)
    html = client.get(url(revisions, "history/1/restore")).content.decode()
    assert "publishes it at once" in html and "into a new revision, 5" in html
    assert "The unpublished draft (revision 4)" in html
    assert revisions.revisions.count() == 4  # looking changed nothing
    response = client.post(url(revisions, "history/1/restore"))
    assert response.status_code == 302
    revisions.refresh_from_db()
    assert revisions.published_revision.number == 5 and "three days a week" in revisions.body


def test_only_editors_see_the_restore_explanation(client, handbook, revisions):
    client.force_login(handbook.reader)
    assert client.get(url(revisions, "history/1/restore")).status_code == 403
    client.force_login(handbook.outsider)
    assert client.get(url(revisions, "history/1/restore")).status_code == 404


def test_the_summary_of_a_restored_text_names_the_current_revision(
    client, handbook, django_capture_on_commit_callbacks
):
    page = handbook.remote
    with django_capture_on_commit_callbacks(execute=True):
        page_save(page=page, title="Remote work", body="Two days at home.", author=handbook.editor)
    with django_capture_on_commit_callbacks(execute=True):
        page_restore(page=page, revision=page.revisions.get(number=1), author=handbook.editor)
    client.force_login(handbook.reader)
    html = client.get(url(page)).content.decode()
    assert "for revision 3 (written for revision 1, which has the same text)" in html


# --- Restricted pages -----------------------------------------------------------------


def test_editors_see_whom_a_page_is_restricted_to(client, handbook, make_user):
    make_user("payeditor", "staff", "hr-editors", "payroll")
    client.login(username="payeditor", password="pw-payeditor")
    page = client.get(url(handbook.salary)).content.decode()
    assert "Restricted to:" in page and "payroll" in page
    tree = client.get(handbook.hr.get_absolute_url()).content.decode()
    assert "restricted to payroll" in tree
    assert tree.count("badge--restricted") == 1  # Remote work is not restricted


def test_readers_of_a_restricted_page_see_a_plain_marker(client, handbook):
    client.force_login(handbook.payroll)  # reads it, does not edit the space
    page = client.get(url(handbook.salary)).content.decode()
    assert "badge--restricted" in page and "Restricted to:" not in page
    tree = client.get(handbook.hr.get_absolute_url()).content.decode()
    assert "badge--restricted" in tree and "restricted to" not in tree  # no group names ("payroller" is them)


def test_people_who_cannot_read_a_restricted_page_see_nothing_of_it(client, handbook):
    for user in (handbook.reader, handbook.editor):
        client.force_login(user)
        tree = client.get(handbook.hr.get_absolute_url()).content.decode()
        assert "Salary" not in tree and "restricted" not in tree and "payroll" not in tree
