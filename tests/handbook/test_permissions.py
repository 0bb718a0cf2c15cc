"""Who may read and edit what: ``handbook/permissions.py`` against a real database."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser, Group
from django.db import connection

from handbook.models import Page, Space
from handbook.permissions import (
    can_admin_space,
    can_edit,
    can_edit_space,
    can_read,
    visible_page_ids_sql,
)
from handbook.services import (
    page_create,
    page_delete,
    page_move,
    page_save,
    page_set_restrictions,
    page_undelete,
    space_set_groups,
)
from tests.readers import visible_page_ids

pytestmark = pytest.mark.django_db


def visible_ids(user) -> set[int]:  # type: ignore[no-untyped-def]
    return set(Page.objects.visible_to(user).values_list("id", flat=True))


def editable_ids(user) -> set[int]:  # type: ignore[no-untyped-def]
    return set(Page.objects.editable_by(user).values_list("id", flat=True))


@pytest.fixture
def world(make_user, make_space, make_page):  # type: ignore[no-untyped-def]
    """Two spaces, a public page, a restricted page, a draft and a deleted page."""
    people = make_space("people", viewers=("staff",), editors=("hr",))
    secret = make_space("secret", viewers=("hr",), editors=("hr",))
    public = make_page(people, "Annual leave", "Twenty five days.", index=False)
    restricted = make_page(people, "Salary bands", "Bands by level.", restricted_to=("payroll",), index=False)
    confidential = make_page(secret, "Dismissals", "Procedure.", index=False)
    draft = page_create(space=people, title="Draft policy", body="Not yet.", publish=False)
    deleted = make_page(people, "Old policy", "Gone.", index=False)
    page_delete(page=deleted)
    users = {
        "viewer": make_user("viewer", "staff"),
        "editor": make_user("editor", "hr"),
        "payroll": make_user("payroll", "staff", "payroll"),
        "payroll_only": make_user("payroll_only", "payroll"),
        "nobody": make_user("nobody"),
        "root": make_user("root", superuser=True),
    }
    return {
        "people": people,
        "secret": secret,
        "public": public,
        "restricted": restricted,
        "confidential": confidential,
        "draft": draft,
        "deleted": deleted,
        **users,
    }


# --- visible_to ------------------------------------------------------------------


def test_anonymous_sees_nothing(world):  # type: ignore[no-untyped-def]
    anon = AnonymousUser()
    assert visible_ids(anon) == set()
    assert not Space.objects.visible_to(anon).exists()
    assert not can_read(anon, world["public"])


def test_inactive_user_sees_nothing(world):  # type: ignore[no-untyped-def]
    viewer = world["viewer"]
    assert world["public"].pk in visible_ids(viewer)
    viewer.is_active = False
    viewer.save()
    assert visible_ids(viewer) == set()
    assert not Space.objects.visible_to(viewer).exists()
    assert editable_ids(viewer) == set()


def test_inactive_superuser_sees_nothing(world):  # type: ignore[no-untyped-def]
    root = world["root"]
    root.is_active = False
    root.save()
    assert visible_ids(root) == set()
    assert editable_ids(root) == set()
    assert not can_admin_space(root, world["people"])


def test_superuser_reads_every_published_live_page(world):  # type: ignore[no-untyped-def]
    assert visible_ids(world["root"]) == {world["public"].pk, world["restricted"].pk, world["confidential"].pk}
    assert set(Space.objects.visible_to(world["root"])) == {world["people"], world["secret"]}


def test_viewer_group_reads_the_space_but_not_restricted_or_other_spaces(world):  # type: ignore[no-untyped-def]
    assert visible_ids(world["viewer"]) == {world["public"].pk}
    assert list(Space.objects.visible_to(world["viewer"])) == [world["people"]]


def test_editor_group_can_read(world):  # type: ignore[no-untyped-def]
    # "hr" is only an editor group of "people", never a viewer group.
    seen = visible_ids(world["editor"])
    assert world["public"].pk in seen
    assert world["confidential"].pk in seen
    assert world["restricted"].pk not in seen  # not in "payroll"


def test_user_without_groups_sees_nothing(world):  # type: ignore[no-untyped-def]
    assert visible_ids(world["nobody"]) == set()
    assert not Space.objects.visible_to(world["nobody"]).exists()


def test_restricted_page_needs_the_restriction_group(world):  # type: ignore[no-untyped-def]
    assert can_read(world["payroll"], world["restricted"])
    assert not can_read(world["viewer"], world["restricted"])


def test_restriction_group_alone_does_not_grant_the_space(world):  # type: ignore[no-untyped-def]
    """Restrictions narrow the space's readers; they never widen them."""
    assert not can_read(world["payroll_only"], world["restricted"])
    assert visible_ids(world["payroll_only"]) == set()


def test_restriction_with_several_groups_any_one_suffices(world, make_user):  # type: ignore[no-untyped-def]
    legal = make_user("legal", "staff", "legal")
    page_set_restrictions(
        page=world["restricted"],
        groups=[Group.objects.get(name="payroll"), Group.objects.get_or_create(name="legal")[0]],
    )
    assert can_read(legal, world["restricted"])
    assert can_read(world["payroll"], world["restricted"])
    assert not can_read(world["viewer"], world["restricted"])


def test_lifting_a_restriction_opens_the_page(world):  # type: ignore[no-untyped-def]
    page_set_restrictions(page=world["restricted"], groups=[])
    assert can_read(world["viewer"], world["restricted"])


def test_draft_is_invisible_to_everyone(world):  # type: ignore[no-untyped-def]
    for name in ("viewer", "editor", "root"):
        assert world["draft"].pk not in visible_ids(world[name]), name


def test_new_draft_revision_keeps_the_published_page_visible(world):  # type: ignore[no-untyped-def]
    page_save(page=world["public"], title="Annual leave", body="Thirty days (draft).", publish=False)
    page = Page.objects.get(pk=world["public"].pk)
    assert can_read(world["viewer"], page)
    assert page.body == "Twenty five days."


def test_soft_deleted_page_is_invisible_until_undeleted(world):  # type: ignore[no-untyped-def]
    deleted = world["deleted"]
    for name in ("viewer", "editor", "root"):
        assert deleted.pk not in visible_ids(world[name]), name
        assert deleted.pk not in editable_ids(world[name]), name
    page_undelete(page=deleted)
    assert can_read(world["viewer"], deleted)
    assert can_edit(world["editor"], deleted)


def test_group_removal_takes_effect_immediately(world):  # type: ignore[no-untyped-def]
    viewer = world["viewer"]
    assert can_read(viewer, world["public"])
    viewer.groups.remove(Group.objects.get(name="staff"))
    # Same Python object, no refresh: membership is read fresh on every check.
    assert not can_read(viewer, world["public"])
    assert visible_ids(viewer) == set()
    assert not Space.objects.visible_to(viewer).exists()


def test_space_losing_a_viewer_group_takes_effect_immediately(world):  # type: ignore[no-untyped-def]
    space_set_groups(space=world["people"], viewer_groups=[], editor_groups=[Group.objects.get(name="hr")])
    assert visible_ids(world["viewer"]) == set()
    assert can_read(world["editor"], world["public"])


def test_page_moved_to_a_restricted_space(world):  # type: ignore[no-untyped-def]
    public = world["public"]
    page_move(page=public, space=world["secret"])
    assert not can_read(world["viewer"], public)
    assert public.pk not in visible_ids(world["viewer"])
    assert can_read(world["editor"], public)  # hr reads "secret"


# --- editing ---------------------------------------------------------------------


def test_editable_by_editors_includes_drafts(world):  # type: ignore[no-untyped-def]
    editable = editable_ids(world["editor"])
    assert world["draft"].pk in editable
    assert world["public"].pk in editable
    assert world["confidential"].pk in editable
    assert world["deleted"].pk not in editable
    assert world["restricted"].pk not in editable  # editors outside the restriction group


def test_viewers_cannot_edit(world):  # type: ignore[no-untyped-def]
    assert editable_ids(world["viewer"]) == set()
    assert not can_edit(world["viewer"], world["public"])
    assert not can_edit_space(world["viewer"], world["people"])


def test_editor_in_restriction_group_can_edit_restricted_page(world, make_user):  # type: ignore[no-untyped-def]
    hr_payroll = make_user("hr_payroll", "hr", "payroll")
    assert can_edit(hr_payroll, world["restricted"])
    assert can_read(hr_payroll, world["restricted"])


def test_superuser_edits_everything_alive(world):  # type: ignore[no-untyped-def]
    editable = editable_ids(world["root"])
    assert {world["public"].pk, world["restricted"].pk, world["draft"].pk, world["confidential"].pk} <= editable
    assert world["deleted"].pk not in editable


def test_anonymous_edits_nothing(world):  # type: ignore[no-untyped-def]
    anon = AnonymousUser()
    assert editable_ids(anon) == set()
    assert not Space.objects.editable_by(anon).exists()
    assert not can_edit(anon, world["public"])
    assert not can_admin_space(anon, world["people"])


def test_space_editable_by(world):  # type: ignore[no-untyped-def]
    assert set(Space.objects.editable_by(world["editor"])) == {world["people"], world["secret"]}
    assert not Space.objects.editable_by(world["viewer"]).exists()
    assert set(Space.objects.editable_by(world["root"])) == {world["people"], world["secret"]}


def test_can_admin_space(world, make_user):  # type: ignore[no-untyped-def]
    staff_editor = make_user("staff_editor", "hr", staff=True)
    staff_viewer = make_user("staff_viewer", "staff", staff=True)
    assert can_admin_space(staff_editor, world["people"])
    assert not can_admin_space(world["editor"], world["people"])  # editor without is_staff
    assert not can_admin_space(staff_viewer, world["people"])  # staff flag without editing rights
    assert can_admin_space(world["root"], world["people"])
    assert can_admin_space(world["root"], world["secret"])


# --- SQL for raw retrieval queries -------------------------------------------------


def _run(sql: str, params: tuple) -> set[int]:  # type: ignore[type-arg]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {row[0] for row in cursor.fetchall()}


@pytest.mark.parametrize("name", ["viewer", "editor", "payroll", "payroll_only", "nobody", "root"])
def test_visible_page_ids_sql_matches_queryset(world, name):  # type: ignore[no-untyped-def]
    user = world[name]
    sql, params = visible_page_ids_sql(user)
    assert _run(sql, params) == visible_ids(user)
    ids = visible_page_ids(user)  # what retrieval filters with: one array from the same queryset
    assert len(ids) == len(set(ids)) and set(ids) == visible_ids(user)


def test_visible_page_ids_sql_follows_group_changes(world):  # type: ignore[no-untyped-def]
    viewer = world["viewer"]
    viewer.groups.add(Group.objects.get(name="payroll"))
    sql, params = visible_page_ids_sql(viewer)
    assert _run(sql, params) == {world["public"].pk, world["restricted"].pk}


@pytest.mark.parametrize("name", ["viewer", "editor", "payroll", "payroll_only", "nobody", "root"])
def test_visible_pages_for_search_match_the_queryset(world, name):  # type: ignore[no-untyped-def]
    from search.retrieval.visibility import VisiblePages, visible_pages

    user = world[name]
    visible = visible_pages(user)  # what a search filters with, and its plan estimate, in one statement
    assert set(visible) == visible_ids(user)
    assert visible.estimate == VisiblePages(visible.ids).estimate


def test_visible_pages_follow_membership_and_restriction_changes(world):  # type: ignore[no-untyped-def]
    """The SQL for a set of groups is compiled once; who is in which group, and which pages are
    restricted, are still read on every call."""
    from search.retrieval.visibility import visible_pages

    viewer, payroll = world["viewer"], Group.objects.get(name="payroll")
    before = set(visible_pages(viewer))
    assert world["restricted"].pk not in before
    viewer.groups.add(payroll)
    assert set(visible_pages(viewer)) == before | {world["restricted"].pk}
    viewer.groups.remove(payroll)
    assert set(visible_pages(viewer)) == before
    page_set_restrictions(page=world["public"], groups=[payroll])
    assert world["public"].pk not in set(visible_pages(viewer))
    page_set_restrictions(page=world["public"], groups=[])
    assert set(visible_pages(viewer)) == before


@pytest.mark.parametrize("kind", ["anonymous", "inactive"])
def test_visible_page_ids_sql_for_users_who_see_nothing(world, kind):  # type: ignore[no-untyped-def]
    user = AnonymousUser() if kind == "anonymous" else world["viewer"]
    if kind == "inactive":
        user.is_active = False
        user.save()
    sql, params = visible_page_ids_sql(user)
    assert _run(sql, params) == set()
    assert visible_page_ids(user) == []
