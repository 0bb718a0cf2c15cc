"""Comments over HTTP: who may list, post, resolve, reopen and delete, and what a page you cannot
read answers (404, like a missing page)."""

from __future__ import annotations

from typing import Any

import pytest

from comments.models import Comment
from comments.services import comment_create, comment_resolve

pytestmark = pytest.mark.django_db


def url(page: Any, suffix: str = "") -> str:
    return f"/spaces/{page.space.slug}/{page.slug}/{suffix}"


def test_a_reader_comments_on_a_section_and_sees_it_on_the_page(client, handbook):
    client.force_login(handbook.reader)
    response = client.post(
        url(handbook.remote, "comments/"), {"body": "Is a laptop stand lent too?", "anchor": "equipment"}
    )
    assert response.status_code == 302 and response["Location"] == url(handbook.remote) + "#comments"
    comment = Comment.objects.get()
    assert (comment.author, comment.anchor, comment.page) == (handbook.reader, "equipment", handbook.remote)
    html = client.get(url(handbook.remote)).content.decode()
    assert "Is a laptop stand lent too?" in html
    assert '<a href="#equipment">Equipment</a>' in html
    assert f'action="{url(handbook.remote, "comments/")}"' in html  # the form to post another


def test_the_thread_through_htmx_is_the_fragment_and_a_post_returns_it(client, handbook):
    client.force_login(handbook.reader)
    response = client.post(url(handbook.remote, "comments/"), {"body": "First"}, HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert response.status_code == 200 and html.lstrip().startswith('<section id="comments"')
    assert "First" in html and "<html" not in html
    page = client.get(url(handbook.remote, "comments/")).content.decode()  # without htmx: a page of its own
    assert "<html" in page and "First" in page


def test_comments_are_plain_text_escaped_with_line_breaks(client, handbook):
    client.force_login(handbook.reader)
    hostile = "<script>alert(1)</script>\n**not bold** <img src=x onerror=alert(2)>"
    client.post(url(handbook.remote, "comments/"), {"body": hostile})
    html = client.get(url(handbook.remote)).content.decode()
    assert "<script>alert(1)" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;<br>**not bold** &lt;img src=x onerror=alert(2)&gt;" in html


@pytest.mark.parametrize(
    "data",
    [
        {"body": ""},
        {"body": "   "},
        {"body": "x" * 2001},
        {"body": "fine", "anchor": "not-a-heading"},
        {"body": "nul\x00byte"},
        {"body": "x" * 1_000_000},
        {"body": "".join(map(chr, range(1, 2000)))},  # control characters and a NUL-free binary mix
        {"body": "fine", "anchor": "\x00"},
    ],
    ids=["empty", "blank", "too-long", "unknown-section", "nul", "one-megabyte", "binary", "nul-section"],
)
def test_bad_comments_are_refused_and_nothing_is_written(client, handbook, data):
    client.force_login(handbook.reader)
    response = client.post(url(handbook.remote, "comments/"), data)
    if data.get("body", "").startswith("\x01"):  # odd but valid text: kept as typed, shown escaped
        assert response.status_code == 302
        assert Comment.objects.get().body == data["body"]
        assert client.get(url(handbook.remote)).status_code == 200
        return
    assert response.status_code == 400
    assert not Comment.objects.exists()


def test_comments_are_rate_limited_per_person(client, handbook, settings):
    settings.COMMENT_RATE_LIMIT = "2/m"
    client.force_login(handbook.reader)
    for n in range(2):
        assert client.post(url(handbook.remote, "comments/"), {"body": f"c{n}"}).status_code == 302
    response = client.post(url(handbook.remote, "comments/"), {"body": "one too many"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 429
    html = response.content.decode()
    assert "commenting very quickly" in html and "one too many</textarea>" in html  # the text is kept
    assert Comment.objects.count() == 2
    client.force_login(handbook.other_reader)  # someone else still may
    assert client.post(url(handbook.remote, "comments/"), {"body": "mine"}).status_code == 302


def _hidden_comment(handbook: Any) -> Comment:
    return comment_create(page=handbook.salary, author=handbook.payroll_reader, body="secret remark")


@pytest.mark.parametrize("who", ["reader", "outsider", "editor"])
def test_a_page_you_cannot_read_answers_404_on_every_comment_address(client, handbook, who):
    """The editor edits hr but is not in "payroll": the restricted page is as absent for them."""
    hidden = _hidden_comment(handbook)
    client.force_login(getattr(handbook, who))
    missing = url(handbook.salary).replace("salary-bands", "no-such-page")
    for base in (url(handbook.salary), missing):
        assert client.get(base + "comments/").status_code == 404
        assert client.post(base + "comments/", {"body": "hello"}).status_code == 404
        for action in ("resolve", "reopen", "delete"):
            assert client.post(f"{base}comments/{hidden.pk}/{action}/").status_code == 404
    # A readable page's address with the hidden comment's id: 404 as well, nothing changes.
    for action in ("resolve", "reopen", "delete"):
        assert client.post(url(handbook.remote, f"comments/{hidden.pk}/{action}/")).status_code == 404
    hidden.refresh_from_db()
    assert hidden.resolved_at is None and Comment.objects.filter(page=handbook.salary).count() == 1


def test_editors_resolve_and_reopen_readers_may_not(client, handbook):
    comment = comment_create(page=handbook.remote, author=handbook.reader, body="Typo in line 2")
    client.force_login(handbook.other_reader)
    assert client.post(url(handbook.remote, f"comments/{comment.pk}/resolve/")).status_code == 403
    client.force_login(handbook.reader)  # its author is a reader: resolving is the editors'
    assert client.post(url(handbook.remote, f"comments/{comment.pk}/resolve/")).status_code == 403

    client.force_login(handbook.editor)
    response = client.post(url(handbook.remote, f"comments/{comment.pk}/resolve/"), HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "resolved by editor" in response.content.decode()
    comment.refresh_from_db()
    assert comment.resolved_by == handbook.editor and comment.resolved_at is not None
    response = client.post(url(handbook.remote, f"comments/{comment.pk}/reopen/"))
    assert response.status_code == 302
    comment.refresh_from_db()
    assert comment.resolved_at is None and comment.resolved_by is None


def test_only_the_author_deletes(client, handbook):
    comment = comment_create(page=handbook.remote, author=handbook.reader, body="Mine")
    for other in (handbook.other_reader, handbook.editor, handbook.admin):
        client.force_login(other)
        assert client.post(url(handbook.remote, f"comments/{comment.pk}/delete/")).status_code == 403
    client.force_login(handbook.reader)
    assert client.post(url(handbook.remote, f"comments/{comment.pk}/delete/")).status_code == 302
    assert not Comment.objects.exists()


def test_a_page_restricted_or_deleted_takes_its_comments_out_of_sight(client, handbook):
    from django.contrib.auth.models import Group

    from handbook.services import page_delete, page_set_restrictions

    comment_create(page=handbook.remote, author=handbook.reader, body="Still there?")
    client.force_login(handbook.other_reader)
    assert "Still there?" in client.get(url(handbook.remote, "comments/")).content.decode()
    page_set_restrictions(page=handbook.remote, groups=[Group.objects.get(name="payroll")])
    assert client.get(url(handbook.remote, "comments/")).status_code == 404
    client.force_login(handbook.payroll_reader)
    assert "Still there?" in client.get(url(handbook.remote, "comments/")).content.decode()
    page_delete(page=handbook.remote)
    assert client.get(url(handbook.remote, "comments/")).status_code == 404
    assert Comment.objects.count() == 1  # kept with the page: restoring it brings them back


def test_resolved_comments_fold_under_a_count(client, handbook):
    first = comment_create(page=handbook.remote, author=handbook.reader, body="Old remark")
    comment_create(page=handbook.remote, author=handbook.reader, body="New remark")
    comment_resolve(comment=first, user=handbook.editor)
    client.force_login(handbook.other_reader)
    html = client.get(url(handbook.remote)).content.decode()
    assert "1 resolved comment" in html and html.index("New remark") < html.index("Old remark")
    assert "Resolve</button>" not in html and "Reopen</button>" not in html  # a reader has no buttons


def test_the_thread_and_presence_speak_french(client, handbook, make_user):
    first = comment_create(page=handbook.remote, author=handbook.reader, body="Vieux", anchor="equipment")
    comment_create(page=handbook.remote, author=handbook.reader, body="Nouveau", anchor="equipment")
    comment_resolve(comment=first, user=handbook.editor)
    client.force_login(handbook.editor)
    html = client.get(url(handbook.remote), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    for text in ("Commentaires", "Publier le commentaire", "Résoudre", "1 commentaire résolu", "Rouvrir"):
        assert text in html, text
    assert 'sur <a href="#equipment">Equipment</a>' in html and "résolu par editor" in html
    second = make_user("second", "staff", "hr-editors")
    client.force_login(second)
    client.post(url(handbook.remote, "editing-now/"))
    client.force_login(handbook.editor)
    shown = client.post(url(handbook.remote, "editing-now/"), HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "second modifie aussi cette page." in shown
