"""Writes to the core domain: revisions, publishing, conflicts, renames, moves, deletes."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from handbook.models import Page, Revision, SlugRedirect, text_search_config
from handbook.services import (
    EditConflict,
    page_create,
    page_delete,
    page_move,
    page_publish,
    page_rename,
    page_restore,
    page_save,
    page_undelete,
    unique_slug,
)
from search.models import Chunk, IndexState

pytestmark = pytest.mark.django_db


@pytest.fixture
def space(make_space):  # type: ignore[no-untyped-def]
    return make_space("people")


@pytest.fixture
def page(space, make_page):  # type: ignore[no-untyped-def]
    return make_page(space, "Annual leave", "Twenty five days.", index=False)


def numbers(page: Page) -> list[int]:
    return list(Revision.objects.filter(page=page).order_by("number").values_list("number", flat=True))


# --- create ----------------------------------------------------------------------


def test_page_create_publishes_revision_one(space, make_user, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    author = make_user("alice", "hr")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        page = page_create(space=space, title="Annual leave", body="Twenty five days.", author=author)
    page.refresh_from_db()
    assert page.slug == "annual-leave"
    assert page.status == Page.Status.PUBLISHED and page.is_published
    assert page.published_revision.number == 1
    assert page.published_revision.author == author
    assert page.body == "Twenty five days."
    assert page.last_editor == author
    assert page.ref.startswith("page:")
    assert len(callbacks) == 2  # the reindex and the summary, each queued after commit


def test_page_create_draft_is_not_published_nor_enqueued(space, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        page = page_create(space=space, title="Draft", body="Not yet.", publish=False)
    page.refresh_from_db()
    assert page.status == Page.Status.DRAFT
    assert page.published_revision is None
    assert not page.is_published
    assert page.body == ""  # the published body; nothing is published yet
    assert numbers(page) == [1]
    assert callbacks == []


def test_page_ref_is_unique(space):  # type: ignore[no-untyped-def]
    page_create(space=space, title="One", body="a", ref="ext:1")
    with pytest.raises(IntegrityError), transaction.atomic():
        page_create(space=space, title="Two", body="b", ref="ext:1")
    assert Page.objects.filter(ref="ext:1").count() == 1


def test_text_search_config_by_language():
    assert text_search_config("en") == "english"
    assert text_search_config("fr") == "french"
    assert text_search_config("fr-CA") == "french"
    assert text_search_config("de") == "simple"
    assert text_search_config("") == "simple"


# --- unique slugs ----------------------------------------------------------------


def test_same_title_in_one_space_gets_numbered_slugs(space):  # type: ignore[no-untyped-def]
    slugs = [page_create(space=space, title="FAQ", body=str(i)).slug for i in range(3)]
    assert slugs == ["faq", "faq-2", "faq-3"]


def test_same_title_in_two_spaces_keeps_the_plain_slug(space, make_space):  # type: ignore[no-untyped-def]
    other = make_space("it")
    assert page_create(space=space, title="FAQ", body="x").slug == "faq"
    assert page_create(space=other, title="FAQ", body="x").slug == "faq"


def test_slug_of_accented_and_symbol_only_titles(space):  # type: ignore[no-untyped-def]
    assert page_create(space=space, title="Congés payés", body="x").slug == "conges-payes"
    assert page_create(space=space, title="!!! ???", body="x").slug == "page"
    assert page_create(space=space, title="日本語", body="x").slug == "page-2"


def test_long_title_slug_fits_the_column(space):  # type: ignore[no-untyped-def]
    title = "word " * 60  # 300 characters
    first = page_create(space=space, title=title, body="x")
    second = page_create(space=space, title=title, body="y")
    assert len(first.slug) <= 200 and len(second.slug) <= 200
    assert second.slug == first.slug + "-2"


def test_unique_slug_excludes_the_page_itself(page):  # type: ignore[no-untyped-def]
    assert unique_slug(page.space, "Annual leave") == "annual-leave-2"
    assert unique_slug(page.space, "Annual leave", exclude_pk=page.pk) == "annual-leave"


# --- save, drafts, publish ------------------------------------------------------------


def test_unchanged_save_writes_no_revision(page, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        result = page_save(page=page, title="Annual leave", body="Twenty five days.")
    assert result.revision is None
    assert result.published is True
    assert numbers(page) == [1]
    assert callbacks == []


def test_changed_body_publishes_a_new_revision(page, make_user, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    bob = make_user("bob", "hr")
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        result = page_save(page=page, title="Annual leave", body="Thirty days.", author=bob, note="more days")
    page.refresh_from_db()
    assert result.revision is not None and result.revision.number == 2
    assert result.published
    assert page.published_revision == result.revision
    assert page.body == "Thirty days."
    assert page.last_editor == bob
    assert result.revision.note == "more days"
    assert numbers(page) == [1, 2]
    assert len(callbacks) == 2  # the reindex and the summary


def test_changed_title_alone_is_a_change(page):  # type: ignore[no-untyped-def]
    result = page_save(page=page, title="Paid leave", body="Twenty five days.")
    page.refresh_from_db()
    assert result.revision is not None
    assert page.title == "Paid leave"


def test_draft_save_keeps_the_published_text(page, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        result = page_save(page=page, title="Annual leave", body="Draft: thirty days.", publish=False)
    page.refresh_from_db()
    assert result.revision is not None and result.revision.number == 2
    assert result.published is False
    assert page.published_revision.number == 1
    assert page.body == "Twenty five days."
    assert page.status == Page.Status.PUBLISHED
    assert callbacks == []  # nothing searchable changed


def test_saving_the_draft_text_again_with_publish_publishes_it(page):  # type: ignore[no-untyped-def]
    page_save(page=page, title="Annual leave", body="Draft: thirty days.", publish=False)
    result = page_save(page=page, title="Annual leave", body="Draft: thirty days.", publish=True)
    page.refresh_from_db()
    assert result.published and result.revision is not None and result.revision.number == 2
    assert numbers(page) == [1, 2]  # no duplicate revision
    assert page.body == "Draft: thirty days."


def test_page_publish_of_an_older_revision(page):  # type: ignore[no-untyped-def]
    page_save(page=page, title="Annual leave", body="Thirty days.")
    first = Revision.objects.get(page=page, number=1)
    page_publish(page=page, revision=first)
    page.refresh_from_db()
    assert page.published_revision == first
    assert page.body == "Twenty five days."


def test_page_publish_refuses_another_pages_revision(page, space):  # type: ignore[no-untyped-def]
    other = page_create(space=space, title="Other", body="x")
    with pytest.raises(ValueError):
        page_publish(page=page, revision=other.published_revision)
    page.refresh_from_db()
    assert page.published_revision.page_id == page.pk


def test_revision_numbers_are_sequential_and_unique(page):  # type: ignore[no-untyped-def]
    for i in range(4):
        page_save(page=page, title="Annual leave", body=f"Version {i}.", publish=i % 2 == 0)
    assert numbers(page) == [1, 2, 3, 4, 5]
    with pytest.raises(IntegrityError), transaction.atomic():
        Revision.objects.create(page=page, number=3, title="dup", body="dup")


def test_revisions_are_numbered_per_page(page, space):  # type: ignore[no-untyped-def]
    other = page_create(space=space, title="Other", body="x")
    page_save(page=page, title="Annual leave", body="v2")
    page_save(page=other, title="Other", body="v2")
    assert numbers(page) == [1, 2]
    assert numbers(other) == [1, 2]


# --- edit conflicts -----------------------------------------------------------------


def test_edit_conflict_raises_and_writes_nothing(page, make_user, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    page_save(page=page, title="Annual leave", body="Someone else's edit.")  # r2
    before = Page.objects.get(pk=page.pk)
    carol = make_user("carol", "hr")
    with django_capture_on_commit_callbacks(execute=False) as callbacks, pytest.raises(EditConflict) as info:
        page_save(page=page, title="Annual leave", body="My edit.", base_number=1, author=carol)
    assert info.value.latest.number == 2
    assert info.value.yours_body == "My edit."
    assert numbers(page) == [1, 2]
    after = Page.objects.get(pk=page.pk)
    assert after.body == "Someone else's edit."
    assert after.published_revision_id == before.published_revision_id
    assert after.last_editor_id == before.last_editor_id
    assert callbacks == []


def test_edit_conflict_with_a_newer_draft(page):  # type: ignore[no-untyped-def]
    page_save(page=page, title="Annual leave", body="Someone's draft.", publish=False)
    with pytest.raises(EditConflict):
        page_save(page=page, title="Annual leave", body="Mine.", base_number=1, publish=False)
    assert numbers(page) == [1, 2]


def test_matching_base_number_saves(page):  # type: ignore[no-untyped-def]
    result = page_save(page=page, title="Annual leave", body="Mine.", base_number=1)
    assert result.revision is not None and result.revision.number == 2


# --- restore, rename, move ----------------------------------------------------------------


def test_restore_creates_a_new_revision(page, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    page_save(page=page, title="Annual leave", body="Thirty days.")
    first = Revision.objects.get(page=page, number=1)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        restored = page_restore(page=page, revision=first)
    page.refresh_from_db()
    assert restored.number == 3
    assert restored.body == "Twenty five days."
    assert restored.note == "Restored r1"
    assert numbers(page) == [1, 2, 3]  # history only grows
    assert page.published_revision == restored
    assert page.body == "Twenty five days."
    assert len(callbacks) == 2  # the reindex and the summary


def test_restoring_the_current_text_is_a_no_op(page):  # type: ignore[no-untyped-def]
    current = Revision.objects.get(page=page, number=1)
    assert page_restore(page=page, revision=current) == current
    assert numbers(page) == [1]


def test_rename_changes_slug_and_keeps_a_redirect(page):  # type: ignore[no-untyped-def]
    page_rename(page=page, title="Paid leave")
    page.refresh_from_db()
    assert page.slug == "paid-leave"
    assert page.title == "Paid leave"
    assert numbers(page) == [1]  # a rename publishes nothing (tests/security/test_login_lock_rename_and_drafts.py)
    redirect = SlugRedirect.objects.get(space_slug="people", page_slug="annual-leave")
    assert redirect.page == page


def test_rename_returns_the_renamed_page(page):  # type: ignore[no-untyped-def]
    renamed = page_rename(page=page, title="Paid leave")
    assert renamed.slug == "paid-leave"
    assert renamed.title == "Paid leave"
    assert renamed.published_revision.number == 1


def test_rename_twice_keeps_every_old_address(page):  # type: ignore[no-untyped-def]
    page_rename(page=page, title="Paid leave")
    page_rename(page=page, title="Holidays")
    assert set(SlugRedirect.objects.filter(page=page).values_list("page_slug", flat=True)) == {
        "annual-leave",
        "paid-leave",
    }


def test_rename_to_a_taken_title_gets_a_free_slug(page, space):  # type: ignore[no-untyped-def]
    page_create(space=space, title="Holidays", body="x")
    page_rename(page=page, title="Holidays")
    page.refresh_from_db()
    assert page.slug == "holidays-2"


def test_case_only_rename_keeps_the_slug(page):  # type: ignore[no-untyped-def]
    page_rename(page=page, title="ANNUAL LEAVE")
    page.refresh_from_db()
    assert page.slug == "annual-leave"
    assert page.title == "ANNUAL LEAVE"
    assert not SlugRedirect.objects.filter(page=page).exists()


def test_move_to_another_space(page, space, make_space, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    it = make_space("it")
    page_create(space=it, title="Annual leave", body="clash")
    parent = page_create(space=space, title="Parent", body="p")
    Page.objects.filter(pk=page.pk).update(parent=parent)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        page_move(page=page, space=it)
    page.refresh_from_db()
    assert page.space == it
    assert page.slug == "annual-leave-2"  # unique in its new space
    assert page.parent is None
    assert SlugRedirect.objects.get(space_slug="people", page_slug="annual-leave").page == page
    assert len(callbacks) == 2  # the reindex and the summary


def test_move_to_the_same_space_is_a_no_op(page, space):  # type: ignore[no-untyped-def]
    page_move(page=page, space=space)
    page.refresh_from_db()
    assert page.slug == "annual-leave"
    assert not SlugRedirect.objects.exists()


# --- delete / undelete -----------------------------------------------------------------


def test_delete_and_undelete(no_embeddings, space, make_page, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    page = make_page(space, "Annual leave", "# Leave\n\nTwenty five days.\n")
    assert Chunk.objects.filter(page=page).exists()
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        page_delete(page=page)
    page.refresh_from_db()
    assert page.deleted_at is not None
    assert len(callbacks) == 2  # the reindex and the summary
    assert not Chunk.objects.filter(page=page).exists()  # unindexed by the task
    assert Page.objects.alive().filter(pk=page.pk).count() == 0
    assert Revision.objects.filter(page=page).count() == 1  # history kept

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        page_undelete(page=page)
    page.refresh_from_db()
    assert page.deleted_at is None
    assert len(callbacks) == 2  # the reindex and the summary
    assert Chunk.objects.filter(page=page).exists()
    assert IndexState.objects.get(page=page).status == IndexState.Status.INDEXED


# --- enqueue after commit -----------------------------------------------------------


def test_reindex_runs_only_after_commit(no_embeddings, page, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        page_save(page=page, title="Annual leave", body="# Leave\n\nThirty days.\n")
    # Inside the transaction nothing was indexed; the index state says "pending".
    assert not Chunk.objects.filter(page=page).exists()
    assert IndexState.objects.get(page=page).status == IndexState.Status.PENDING
    assert len(callbacks) == 2  # the reindex and the summary
    for callback in callbacks:  # what the commit would run: the (eager) reindex and summary tasks
        callback()
    texts = list(Chunk.objects.filter(page=page).values_list("text", flat=True))
    assert any("Thirty days." in t for t in texts)
    page.refresh_from_db()
    assert set(Chunk.objects.filter(page=page).values_list("revision_id", flat=True)) == {page.published_revision_id}


def test_rolled_back_save_enqueues_nothing(page, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        try:
            with transaction.atomic():
                page_save(page=page, title="Annual leave", body="Never committed.")
                raise RuntimeError("boom")
        except RuntimeError:
            pass
    assert callbacks == []
    assert numbers(page) == [1]
