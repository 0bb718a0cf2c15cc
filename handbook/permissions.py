"""The one place that says who may read or edit what.

Reading a page needs all of:
- the page is published and not deleted;
- the user is active and in a viewer or editor group of the page's space;
- if the page is restricted to groups, the user is in one of them.
Superusers read everything that is published and not deleted.

Everything is expressed as SQL (``EXISTS`` subqueries), so callers filter
before ranking and ``LIMIT``, never by dropping rows in Python afterwards.
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core.exceptions import EmptyResultSet
from django.db import connection, models
from django.db.models import Exists, OuterRef, Q

from core.users import is_active_user

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

    from handbook.models import Page, Space

    AnyUser = AbstractBaseUser | AnonymousUser


def _model(name: str) -> Any:
    """The handbook model ``name``, looked up in the app registry: the models module imports the
    query sets defined here, so this module does not import it back."""
    return apps.get_model("handbook", name)


def user_group_ids(user: Any) -> list[int]:
    if not is_active_user(user):
        return []
    # Read fresh every time: a revoked membership must take effect on the next request. From the
    # membership table alone (its foreign key guarantees the group exists), in plain SQL: every
    # search starts here, and the ORM cost more to build and read this one column than the query itself.
    table = connection.ops.quote_name(user.groups.through._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT group_id FROM {table} WHERE user_id = %s ORDER BY group_id", [user.pk])  # noqa: S608
        return [row[0] for row in cursor.fetchall()]


def _space_member_q(group_ids: list[int], space_field: str = "") -> Q:
    Space = _model("Space")

    prefix = f"{space_field}__" if space_field else ""
    through_viewers = Space.viewer_groups.through
    through_editors = Space.editor_groups.through
    space_ref = OuterRef(f"{prefix}id" if prefix else "id")
    return Q(Exists(through_viewers.objects.filter(space_id=space_ref, group_id__in=group_ids))) | Q(
        Exists(through_editors.objects.filter(space_id=space_ref, group_id__in=group_ids))
    )


class SpaceQuerySet(models.QuerySet["Space"]):
    def visible_to(self, user: Any) -> SpaceQuerySet:
        if not is_active_user(user):
            return self.none()
        if user.is_superuser:
            return self.all()
        return self.filter(_space_member_q(user_group_ids(user)))

    def editable_by(self, user: Any) -> SpaceQuerySet:
        if not is_active_user(user):
            return self.none()
        if user.is_superuser:
            return self.all()
        Space = _model("Space")

        through = Space.editor_groups.through
        group_ids = user_group_ids(user)
        return self.filter(Exists(through.objects.filter(space_id=OuterRef("id"), group_id__in=group_ids)))


class PageQuerySet(models.QuerySet["Page"]):
    def alive(self) -> PageQuerySet:
        return self.filter(deleted_at__isnull=True)

    def published(self) -> PageQuerySet:
        return self.alive().filter(status="published", published_revision__isnull=False)

    def visible_to(self, user: Any) -> PageQuerySet:
        """Pages the user may read: the filter every read path starts from."""
        if not is_active_user(user):
            return self.none()
        if user.is_superuser:
            return self.published()
        return self.readable_by_groups(user_group_ids(user))

    def readable_by_groups(self, group_ids: list[int]) -> PageQuerySet:
        """Published pages that members of exactly these groups may read."""
        return self.published().filter(readable_by_groups_q(group_ids))

    def editable_by(self, user: Any) -> PageQuerySet:
        """Pages (drafts included) the user may edit: editors of the space."""
        Space = _model("Space")

        if not is_active_user(user):
            return self.none()
        if user.is_superuser:
            return self.alive()
        through = Space.editor_groups.through
        group_ids = user_group_ids(user)
        return self.alive().filter(
            Exists(through.objects.filter(space_id=OuterRef("space_id"), group_id__in=group_ids)),
            _restriction_q(group_ids),
        )


def _restriction_q(group_ids: list[int]) -> Q:
    Page = _model("Page")

    through = Page.restricted_to_groups.through
    restricted = through.objects.filter(page_id=OuterRef("id"))
    return ~Q(Exists(restricted)) | Q(Exists(restricted.filter(group_id__in=group_ids)))


def readable_by_groups_q(group_ids: list[int]) -> Q:
    """Space membership (viewer or editor) and, for restricted pages, a matching group."""
    return _space_member_q(group_ids, "space") & _restriction_q(group_ids)


def visible_page_ids_sql(user: Any) -> tuple[str, tuple[Any, ...]]:
    """``SELECT id FROM page WHERE <visible>`` as SQL + params, for raw retrieval queries."""
    if not is_active_user(user):
        return _NOTHING
    # The user's groups are read fresh; the SQL for a set of groups is compiled once (the ORM
    # spent a noticeable share of each search building the same statement again).
    return _readable_ids_sql(None if user.is_superuser else tuple(sorted(user_group_ids(user))))


_NOTHING = ("SELECT NULL::bigint AS id WHERE false", ())


def readable_ids_sql_for_groups(group_ids: tuple[int, ...] | None) -> tuple[str, tuple[Any, ...]]:
    """``visible_page_ids_sql`` for a superuser (``None``) or an active member of exactly these groups,
    for callers that have just read the groups themselves."""
    return _readable_ids_sql(None if group_ids is None else tuple(sorted(group_ids)))


@lru_cache(maxsize=1024)
def _readable_ids_sql(group_ids: tuple[int, ...] | None) -> tuple[str, tuple[Any, ...]]:
    """``visible_page_ids_sql`` for a superuser (``None``) or a member of exactly ``group_ids``."""
    Page = _model("Page")

    pages = Page.objects.published() if group_ids is None else Page.objects.readable_by_groups(list(group_ids))
    try:
        sql, params = pages.order_by().values("id").query.sql_with_params()
    except EmptyResultSet:  # nothing is visible (no groups)
        return _NOTHING
    return sql, tuple(params)


def can_read(user: Any, page: Page) -> bool:
    Page = _model("Page")

    return Page.objects.visible_to(user).filter(pk=page.pk).exists()


def can_edit(user: Any, page: Page) -> bool:
    Page = _model("Page")

    return Page.objects.editable_by(user).filter(pk=page.pk).exists()


def can_edit_space(user: Any, space: Space) -> bool:
    Space = _model("Space")

    return Space.objects.editable_by(user).filter(pk=space.pk).exists()


def can_admin_space(user: Any, space: Space) -> bool:
    """Space admins manage groups and restrictions: superusers and space editors who are staff."""
    if not is_active_user(user):
        return False
    return bool(user.is_superuser or (user.is_staff and can_edit_space(user, space)))


def pages_everyone_reads() -> set[int]:
    """Published pages every active account may read, superusers aside (they read all). What may
    teach a choice made once for every reader (summary weights, Ask's quote order).

    An account in no group reads no page, so it constrains nothing. The memberships are read in one
    statement, then one query per distinct set of groups."""
    membership = get_user_model().groups.through
    groups_of: dict[int, set[int]] = defaultdict(set)
    for user_id, group_id in membership.objects.filter(user__is_active=True, user__is_superuser=False).values_list(
        "user_id", "group_id"
    ):
        groups_of[user_id].add(group_id)
    page = _model("Page")
    ids = set(page.objects.published().values_list("pk", flat=True))
    for groups in {tuple(sorted(g)) for g in groups_of.values()}:
        ids &= set(page.objects.readable_by_groups(list(groups)).filter(pk__in=ids).values_list("pk", flat=True))
        if not ids:
            break
    return ids
