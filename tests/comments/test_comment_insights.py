"""Open comments on Insights: the pages the viewer answers for and may read, newest first, with a
Resolve button for the pages they may edit; never a comment on a page they cannot read."""

from __future__ import annotations

import pytest

from comments.models import Comment
from comments.selectors import comments_visible_to, open_comments_for_insights
from comments.services import comment_create, comment_resolve

pytestmark = pytest.mark.django_db


@pytest.fixture
def remarks(handbook):  # type: ignore[no-untyped-def]
    return {
        "remote": comment_create(page=handbook.remote, author=handbook.reader, body="Remote remark"),
        "salary": comment_create(page=handbook.salary, author=handbook.payroll_reader, body="Salary remark"),
        "minutes": comment_create(page=handbook.minutes, author=None, body="Minutes remark"),
        "done": comment_resolve(
            comment=comment_create(page=handbook.remote, author=handbook.reader, body="Done remark"),
            user=handbook.editor,
        ),
    }


def _bodies(comments: list[Comment]) -> list[str]:
    return [c.body for c in comments]


def test_editors_see_open_comments_on_pages_they_may_read(handbook, remarks):
    # The hr editor is not in "payroll": the restricted page's comment is not theirs to see.
    assert _bodies(open_comments_for_insights(handbook.editor)) == ["Remote remark"]
    assert _bodies(open_comments_for_insights(handbook.admin)) == ["Minutes remark", "Salary remark", "Remote remark"]
    assert open_comments_for_insights(handbook.reader) == []  # reads, edits and owns nothing
    assert open_comments_for_insights(handbook.outsider) == []


def test_an_owner_sees_the_comments_of_the_pages_they_own(handbook, remarks, make_user):
    from handbook.models import Page

    owner = make_user("owner", "staff", "payroll", "hr-editors")
    Page.objects.filter(pk=handbook.salary.pk).update(owner_user=owner)
    assert _bodies(open_comments_for_insights(owner)) == ["Salary remark", "Remote remark"]
    assert all(c.can_resolve for c in open_comments_for_insights(owner))


def test_every_read_joins_through_visibility(handbook, remarks):
    assert set(comments_visible_to(handbook.reader)) == {remarks["remote"], remarks["done"]}
    assert set(comments_visible_to(handbook.payroll_reader)) == {remarks["remote"], remarks["done"], remarks["salary"]}
    assert not comments_visible_to(handbook.outsider).exists()


def test_the_insights_page_lists_them_and_resolves_back_to_it(client, handbook, remarks):
    client.force_login(handbook.editor)
    html = client.get("/insights/").content.decode()
    assert "Open comments on your pages" in html and "Remote remark" in html
    assert "Salary remark" not in html and "Minutes remark" not in html and "Done remark" not in html
    resolve = f"/spaces/hr/remote-work/comments/{remarks['remote'].pk}/resolve/"
    assert f'action="{resolve}"' in html
    response = client.post(resolve, {"next": "insights"})
    assert response.status_code == 302 and response["Location"] == "/insights/#open-comments"
    assert "Remote remark" not in client.get("/insights/").content.decode()


def test_comments_are_never_indexed_searched_or_asked(handbook, django_capture_on_commit_callbacks):
    from handbook.services import page_save
    from search.ask.answers import answer_question
    from search.models import Chunk
    from search.selectors import search_pages

    comment_create(page=handbook.remote, author=handbook.reader, body="zanzibarquokka reimbursement")
    with django_capture_on_commit_callbacks(execute=True):  # the page is reindexed, comments and all
        page_save(page=handbook.remote, title="Remote work", body=handbook.remote.body + "\nMore.\n")
    assert Chunk.objects.filter(page=handbook.remote, text__contains="More.").exists()
    assert not Chunk.objects.filter(text__icontains="zanzibarquokka").exists()
    assert search_pages(user=handbook.admin, query="zanzibarquokka").total == 0
    answer = answer_question(user=handbook.admin, question="zanzibarquokka?", log=False, rate_limit=False)
    assert not answer.citations
