"""A rename keeps the text's opening ``# <title>`` in step with the title."""

from __future__ import annotations

import pytest
from django.test import Client

from handbook.models import Page, Revision
from handbook.services import page_create, page_publish, page_rename, page_save
from handbook.title_heading import retitled
from search.models import Chunk

pytestmark = pytest.mark.django_db

REMOTE = "# Remote work\n\nStaff may work from home up to three days a week.\n"


@pytest.fixture
def hr(make_space):  # type: ignore[no-untyped-def]
    return make_space("hr", viewers=("staff",), editors=("hr-editors",))


@pytest.fixture
def reader(make_user):  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(make_user("reader", "staff"))
    return client


def _titles_and_bodies(page: Page) -> list[tuple[int, str, str]]:
    return list(Revision.objects.filter(page=page).order_by("number").values_list("number", "title", "body"))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("# Remote work\n\nText.\n", "# Telework\n\nText.\n"),
        ("\n\n  #   Remote   work  ##\nText.", "\n\n# Telework\nText."),
        ("Remote work\n===========\n\nText.", "# Telework\n\nText."),
        ("# Remote work", "# Telework"),
    ],
)
def test_an_opening_heading_naming_the_old_title_is_rewritten(body: str, expected: str) -> None:
    assert retitled(body, {"Remote work"}, "Telework") == expected


@pytest.mark.parametrize(
    "body",
    [
        "Staff may work from home.\n\n# Remote work\n",  # not the opening line
        "## Remote work\n\nText.",  # not an H1
        "# Remote working rules\n\nText.",  # another heading
        "#Remote work\n",  # not a heading in CommonMark
        "",
    ],
)
def test_other_text_is_left_alone(body: str) -> None:
    assert retitled(body, {"Remote work"}, "Telework") is None


def test_a_title_with_markdown_characters_renders_as_itself() -> None:
    assert retitled("# Old\n", {"Old"}, "C# *rules*") == "# C\\# \\*rules\\*\n"
    assert retitled("# C\\# \\*rules\\*\n", {"C# *rules*"}, "New") == "# New\n"


def test_renaming_a_published_page_rewrites_its_heading_and_refreshes_the_index(
    hr, make_page, reader, no_embeddings, django_capture_on_commit_callbacks
):  # type: ignore[no-untyped-def]
    page = make_page(hr, "Remote work", REMOTE)
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        page_rename(page=page, title="Telework policy")
    assert len(callbacks) == 2  # the normal page-change path: the reindex and the summary
    page.refresh_from_db()
    assert page.body == "# Telework policy\n\nStaff may work from home up to three days a week.\n"
    assert page.published_revision.number == 2 and page.published_revision.note == "Renamed"
    assert page.published_revision.body == page.body

    html = reader.get("/spaces/hr/telework-policy/").content.decode()
    assert html.count("Telework policy</h1>") == 1
    assert "Remote work" not in html.split("<article", 1)[1]
    chunks = Chunk.objects.filter(page=page)
    assert {c.revision_id for c in chunks} == {page.published_revision_id}
    headings = " ".join(c.heading for c in chunks)
    assert "Telework policy" in headings and "Remote work" not in headings


def test_a_page_without_the_heading_gets_no_revision(hr, make_page) -> None:  # type: ignore[no-untyped-def]
    page = make_page(hr, "Remote work", "Staff may work from home.\n", index=False)
    page_rename(page=page, title="Telework")
    page.refresh_from_db()
    assert [n for n, _t, _b in _titles_and_bodies(page)] == [1]
    assert page.body == "Staff may work from home.\n"


def test_a_pending_draft_stays_pending_with_its_own_text_under_the_new_heading(hr, make_page) -> None:  # type: ignore[no-untyped-def]
    page = make_page(hr, "Remote work", REMOTE, index=False)
    draft_text = "# Remote work\n\nStaff may work from home every day.\n"
    page_save(page=page, title="Remote work", body=draft_text, publish=False)
    page_rename(page=page, title="Telework")
    page.refresh_from_db()
    assert _titles_and_bodies(page) == [
        (1, "Remote work", REMOTE),
        (2, "Remote work", draft_text),
        (3, "Telework", "# Telework\n\nStaff may work from home up to three days a week.\n"),  # published
        (4, "Telework", "# Telework\n\nStaff may work from home every day.\n"),  # still the pending draft
    ]
    assert page.published_revision.number == 3
    assert "every day" not in page.body  # the draft's text is not published
    page_publish(page=page, revision=Revision.objects.get(page=page, number=4))
    page.refresh_from_db()
    assert page.title == "Telework" and page.body.startswith("# Telework\n")


def test_a_never_published_draft_is_renamed_without_being_published(hr) -> None:  # type: ignore[no-untyped-def]
    draft = page_create(space=hr, title="Layoffs plan", body="# Layoffs plan\n\nCut.\n", publish=False)
    page_rename(page=draft, title="Restructuring")
    draft.refresh_from_db()
    assert draft.status == Page.Status.DRAFT and draft.published_revision_id is None and draft.body == ""
    assert _titles_and_bodies(draft)[-1] == (2, "Restructuring", "# Restructuring\n\nCut.\n")


def test_a_heading_left_by_an_older_rename_is_caught_up(hr, make_page) -> None:  # type: ignore[no-untyped-def]
    """The published revision's own title is the one its text was written under."""
    page = make_page(hr, "Remote work", REMOTE, index=False)
    Page.objects.filter(pk=page.pk).update(title="Telework")  # as a rename before this change left it
    page_rename(page=page, title="Working from home")
    page.refresh_from_db()
    assert page.body.startswith("# Working from home\n")
