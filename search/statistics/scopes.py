"""Readership scopes: the unit in which index statistics are kept, so no reader sees hidden content.

Search ranks with statistics of the whole index — how rare a word is (IDF), each
language's mean vector (cross-language list), the word-translation vocabulary.
Counted over every chunk, they let a reader detect a word in pages hidden from
them: the order of two results flips when a hidden page gains the word.

So statistics are kept per *scope*: the published pages of one space that share
the same restriction (none, or one set of groups). Everybody who may read one
page of a scope may read all of them (``handbook/permissions.py``: space
membership, then the page's restriction groups), so a reader's statistics are
the sum over the scopes they may read — a function of readable content only.
A space has one scope plus one per distinct restriction, so there are few.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from django.contrib.auth import get_user_model
from django.db import connection

from core import languages
from core.prepared import prepared_cursor
from core.users import is_active_user
from handbook.models import Page, Space

# The languages with statistics of their own, as an SQL list; every other one counts as 'other'.
_CODES = ", ".join(f"'{code}'" for code in languages.CODES)


def scope_key(space_id: int, groups: list[int] | tuple[int, ...]) -> str:
    """A readership scope as text: ``"<space>"`` or ``"<space>:<g1>.<g2>"`` (groups sorted)."""
    return f"{space_id}:{'.'.join(map(str, groups))}" if groups else str(space_id)


@dataclass(frozen=True, eq=False)
class ScopeStamps:
    """The stamp of every scope one reader may read, as committed when they were read
    (``search/statistics/stamps.py``): read once per search with the reader, and handed to every
    statistic the search checks for freshness (language means, vocabulary, term weights)."""

    by_scope: Mapping[str, int]  # scope_key -> stamp

    @classmethod
    def from_rows(cls, rows: list[list[Any]] | None) -> ScopeStamps:
        """From ``stamps_sql``'s rows: (space id, sorted restriction groups, stamp)."""
        return cls({scope_key(space, groups or ()): int(stamp) for space, groups, stamp in rows or ()})

    @property
    def digest(self) -> str:
        """One short text for all of them: equal exactly when every stamp is."""
        return hashlib.md5(repr(sorted(self.by_scope.items())).encode(), usedforsecurity=False).hexdigest()

    def changed_since(self, counted: Mapping[str, int] | None) -> list[str]:
        """The scopes whose stamp is not the one they were counted at (``counted``: a record)."""
        counted = counted or {}
        return sorted(key for key, stamp in self.by_scope.items() if counted.get(key) != stamp)


@dataclass(frozen=True)
class Reader:
    """Whose statistics: the scopes one user may read, from their groups (read fresh)."""

    group_ids: frozenset[int]
    space_ids: frozenset[int]
    everything: bool = False  # superusers read every published page
    # The stamps of those scopes, read in the same statement as the groups (``reader_of``); None: read
    # them when needed. Not part of who the reader is: equal readers may hold stamps of two moments.
    stamps: ScopeStamps | None = field(default=None, compare=False, repr=False)

    def current_stamps(self) -> ScopeStamps:
        """The stamps of the scopes this reader may read: those read with the reader (``reader_of``:
        once per search, the same for every statistic it checks), else read now."""
        return self.stamps if self.stamps is not None else read_stamps(self)

    def changed_since(self, counted: Mapping[str, int] | None) -> list[str]:
        """The scopes this reader may read whose stamp is not the one they were counted at."""
        return self.current_stamps().changed_since(counted)

    def reads(self, space_id: int, groups: tuple[int, ...] | list[int]) -> bool:
        if self.everything:
            return True
        return space_id in self.space_ids and (not groups or not self.group_ids.isdisjoint(groups))

    def sql(self, space_column: str, groups_column: str) -> tuple[str, list[Any]]:
        """SQL true for the rows of a scope this reader may read, and its parameters."""
        if self.everything:
            return "true", []
        return (
            f"({space_column} = ANY(%s) AND ({groups_column} = '{{}}' OR {groups_column} && %s::int[]))",
            [sorted(self.space_ids), sorted(self.group_ids)],
        )

    @property
    def key(self) -> str:
        """A short cache key: readers with the same key see the same statistics."""
        if self.everything:
            return "all"
        material = f"{sorted(self.space_ids)}|{sorted(self.group_ids)}"
        return hashlib.sha256(material.encode()).hexdigest()[:24]


EVERYTHING = Reader(frozenset(), frozenset(), everything=True)
NOBODY = Reader(frozenset(), frozenset())


def spaces_of_groups_sql(groups: str) -> str:
    """SQL for the array of spaces whose viewers or editors include one of ``groups`` (an SQL set)."""
    viewers = connection.ops.quote_name(Space.viewer_groups.through._meta.db_table)
    editors = connection.ops.quote_name(Space.editor_groups.through._meta.db_table)
    return (
        f"ARRAY(SELECT space_id FROM {viewers} WHERE group_id IN ({groups})"  # noqa: S608 - table names from the models
        f" UNION SELECT space_id FROM {editors} WHERE group_id IN ({groups}))"
    )


def reader_of(user: Any) -> Reader:
    """The reader ``user`` is now: groups, readable spaces and the stamps of the scopes they may read,
    in one round trip (one snapshot: the stamps are those of exactly these scopes)."""
    if not is_active_user(user):
        return NOBODY
    # Prepared (core/prepared.py): every search and keystroke runs it, and planning was most of its cost.
    with prepared_cursor(connection) as cursor:
        if user.is_superuser:
            cursor.execute(_everything_sql())
            (stamps,) = cursor.fetchone()
            return replace(EVERYTHING, stamps=ScopeStamps.from_rows(stamps))
        cursor.execute(_reader_sql(), [user.pk])
        group_ids, space_ids, stamps = cursor.fetchone()
    return Reader(frozenset(group_ids or ()), frozenset(space_ids or ()), stamps=ScopeStamps.from_rows(stamps))


def stamps_sql(where: str) -> str:
    """SQL for the stamps of the scopes ``where`` selects (it tests ``s``, the stamp rows), as one
    JSON array of (space id, groups, stamp) for ``ScopeStamps.from_rows``."""
    return (
        f"(SELECT json_agg(json_build_array(s.space_id, s.groups, s.stamp)) FROM handbook_scopestamp s WHERE {where})"
    )


def read_stamps(reader: Reader) -> ScopeStamps:
    """The stamp of every scope ``reader`` may read, as committed now (one small statement)."""
    readable, params = reader.sql("s.space_id", "s.groups")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {stamps_sql(readable)}", params)  # noqa: S608 - our own SQL
        return ScopeStamps.from_rows(cursor.fetchone()[0])


@cache
def _reader_sql() -> str:
    # Built once: through ``user.groups`` it made a related manager on every call (a third of a
    # keystroke's Python time). The stamps test is ``Reader.sql``'s, over the groups and spaces read here.
    memberships = connection.ops.quote_name(get_user_model().groups.through._meta.db_table)
    readable = "s.space_id = ANY(r.spaces) AND (s.groups = '{}' OR s.groups && r.groups)"
    return f"""
        WITH g AS (SELECT group_id FROM {memberships} WHERE user_id = %s),
        r AS (SELECT ARRAY(SELECT group_id FROM g) AS groups,
                     {spaces_of_groups_sql("SELECT group_id FROM g")} AS spaces)
        SELECT r.groups, r.spaces, {stamps_sql(readable)} FROM r
    """  # noqa: S608 - table names from the models


@cache
def _everything_sql() -> str:
    return f"SELECT {stamps_sql('true')}"


def scoped_chunks_sql(where: str = "true") -> str:
    """``SELECT`` of every indexed chunk of a published page with its scope (space_id, groups) and
    statistics language (``en``, ``fr`` or ``other``); ``where`` may test ``p`` and ``c``."""
    restricted = connection.ops.quote_name(Page.restricted_to_groups.through._meta.db_table)
    return f"""
        SELECT c.id, c.search_vector, c.embedding, c.embedding_model, c.language AS chunk_language,
               p.space_id, COALESCE(r.groups, '{{}}'::int[]) AS groups,
               CASE WHEN c.language IN ({_CODES}) THEN c.language ELSE 'other' END AS lang
        FROM search_chunk c
        JOIN handbook_page p ON p.id = c.page_id
        LEFT JOIN (SELECT page_id, array_agg(group_id ORDER BY group_id) AS groups
                   FROM {restricted} GROUP BY page_id) r ON r.page_id = p.id
        WHERE p.status = 'published' AND p.deleted_at IS NULL AND p.published_revision_id IS NOT NULL
          AND ({where})
    """  # noqa: S608 - composed from our own SQL


def page_scope(page_id: int) -> tuple[int, list[int]] | None:
    """The scope (space id, sorted restriction groups) a page's chunks count in, if it exists."""
    restricted = connection.ops.quote_name(Page.restricted_to_groups.through._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT p.space_id, ARRAY(SELECT group_id FROM {restricted} WHERE page_id = p.id ORDER BY group_id)"  # noqa: S608
            " FROM handbook_page p WHERE p.id = %s",
            [page_id],
        )
        row = cursor.fetchone()
    return (row[0], list(row[1] or [])) if row else None
