"""A reader's page set is reused while the stamps of the scopes they may read stand.

Every change that can add or remove a readable page must be seen by the next search (the set equals
the permission query's), and changes to pages the reader cannot read must not even cost them a
recomputation (the same set comes back: no slower search to time).
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from handbook.models import Page
from search.retrieval.visibility import visible_pages
from search.statistics.scopes import reader_of
from tests.readers import visible_page_ids


@pytest.fixture
def world(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    people, board = make_space("people"), make_space("board", viewers=("board",))
    pages = {
        "public": make_page(people, "Leave", "# Leave\n\nTwenty-five days.", index=False),
        "other": make_page(people, "Parking", "# Parking\n\nForty places.", index=False),
        "board": make_page(board, "Board minutes", "# Minutes\n\nSecret.", index=False),
        "hr": make_page(people, "Layoffs", "# Plan\n\nSecret.", restricted_to=("hr",), index=False),
    }
    return {"people": people, "board": board, "pages": pages, "bob": make_user("bob", "staff")}


def _fresh(user) -> set[int]:  # type: ignore[no-untyped-def]
    """The set from the permission query, and the one a search uses: they must agree."""
    used = set(visible_pages(user))
    assert used == set(visible_page_ids(user))
    return used


@pytest.mark.django_db
def test_every_change_to_what_a_reader_may_read_is_seen_by_the_next_search(world, make_page):
    bob, pages = world["bob"], world["pages"]
    public = pages["public"]
    start = _fresh(bob)
    assert start == {public.pk, pages["other"].pk}

    new = make_page(world["people"], "Canteen", "# Canteen\n\nFour euros.", index=False)
    assert _fresh(bob) == start | {new.pk}  # published
    Page.objects.filter(pk=new.pk).update(status="draft")
    assert _fresh(bob) == start  # unpublished (a bulk update: no model signal)
    Page.objects.filter(pk=public.pk).update(deleted_at=timezone.now())
    assert _fresh(bob) == start - {public.pk}  # deleted
    Page.objects.filter(pk=public.pk).update(deleted_at=None)
    assert _fresh(bob) == start  # restored
    Page.objects.filter(pk=public.pk).update(space=world["board"])
    assert _fresh(bob) == start - {public.pk}  # moved to a space bob cannot read
    Page.objects.filter(pk=public.pk).update(space=world["people"])
    assert _fresh(bob) == start  # and back
    hr, staff = Group.objects.get_or_create(name="hr")[0], Group.objects.get(name="staff")
    public.restricted_to_groups.add(hr)
    assert _fresh(bob) == start - {public.pk}  # restricted to a group bob is not in
    public.restricted_to_groups.add(staff)
    assert _fresh(bob) == start  # …and to one he is in
    public.restricted_to_groups.remove(staff)
    assert _fresh(bob) == start - {public.pk}
    public.restricted_to_groups.clear()
    assert _fresh(bob) == start  # unrestricted

    bob.groups.add(Group.objects.get(name="board"))
    assert _fresh(bob) == start | {pages["board"].pk}  # bob joined a group
    bob.groups.remove(Group.objects.get(name="board"))
    world["board"].viewer_groups.add(staff)
    assert _fresh(bob) == start | {pages["board"].pk}  # his group may now read a space
    world["board"].viewer_groups.remove(staff)
    assert _fresh(bob) == start
    other = pages["other"].pk
    pages["other"].delete()
    assert _fresh(bob) == start - {other}  # hard delete


@pytest.mark.django_db
def test_changes_to_pages_a_reader_cannot_read_do_not_touch_their_set(world, make_page):
    bob, pages = world["bob"], world["pages"]
    cached = visible_pages(bob)
    assert visible_pages(bob) is cached  # nothing changed: the same set, no second statement

    make_page(world["board"], "More minutes", "# Minutes\n\nAlso secret.", index=False)
    make_page(world["people"], "Salaries", "# Pay\n\nSecret.", restricted_to=("hr",), index=False)
    Page.objects.filter(pk=pages["board"].pk).update(deleted_at=timezone.now())
    Page.objects.filter(pk=pages["hr"].pk).update(status="draft")
    pages["hr"].restricted_to_groups.add(Group.objects.get_or_create(name="payroll")[0])
    assert visible_pages(bob) is cached  # hidden pages came, went and changed: bob's set stands

    Page.objects.filter(pk=pages["other"].pk).update(status="draft")
    changed = visible_pages(bob)
    assert changed is not cached and set(changed) == set(cached) - {pages["other"].pk}


@pytest.mark.django_db
def test_a_set_computed_while_the_readers_spaces_changed_is_not_kept(world):
    """The reader (groups, spaces) is read before the set: a membership change in between gives a
    set that belongs to another key, which must not be served to the reader's old key later."""
    bob, pages, staff = world["bob"], world["pages"], Group.objects.get(name="staff")
    before = reader_of(bob)
    world["board"].viewer_groups.add(staff)
    assert pages["board"].pk in set(visible_pages(bob, before))  # what the permission query says now
    world["board"].viewer_groups.remove(staff)
    assert pages["board"].pk not in _fresh(bob)
