"""The pages a user may read, in the SQL form each retrieval statement wants.

``visible_to`` decides who reads what; this module only carries its answer
(page ids, read fresh for every search) into the retrieval SQL, where every
leg tests each chunk before ranking and ``LIMIT``.

Two forms of the same set:
- ``page_id = ANY(array)`` for small sets, or when an index should fetch the
  visible rows (exact vector search);
- a bitmap (``get_bit(bytea, page_id)``) for large sets. With thousands of
  ids the array form costs more than the search itself: Postgres parses the
  literal and the planner estimates its selectivity element by element (many
  times what a bitmap costs: bench.search's scale section), and a search runs
  several such statements.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator
from functools import cached_property
from typing import Any

import numpy as np
from cachetools import LRUCache

from config.numbers import ARRAY_MAX_IDS
from config.numbers import VISIBILITY_CACHED_SETS as CACHED_SETS
from core.db_router import read_connection
from handbook.permissions import readable_ids_sql_for_groups
from search.statistics.scopes import (
    EVERYTHING,
    NOBODY,
    Reader,
    ScopeStamps,
    reader_of,
    spaces_of_groups_sql,
    stamps_sql,
)


class VisiblePages:
    """An immutable set of page ids with its SQL membership tests."""

    def __init__(
        self,
        ids: Iterable[int],
        *,
        estimate: tuple[int, float] | None = None,
        sorted_unique: bool = False,
        reader: Reader = EVERYTHING,
    ) -> None:
        """``sorted_unique``: the caller guarantees ascending ids without repeats (taken as they are:
        sorting thousands of ids again is a cost every search would pay). ``reader``: whose index statistics
        rank these pages (a bare id list, as tests pass, ranks with the whole index's)."""
        self.ids: list[int] = ids if sorted_unique and isinstance(ids, list) else sorted({int(i) for i in ids})
        self.reader = reader
        if estimate is not None:
            self.__dict__["estimate"] = estimate  # already known (``visible_pages``): no second query

    def __len__(self) -> int:
        return len(self.ids)

    def __bool__(self) -> bool:
        return bool(self.ids)

    def __iter__(self) -> Iterator[int]:
        return iter(self.ids)

    @cached_property
    def bitmap(self) -> bytes:
        """Bit ``i`` set for page ``i``, in ``get_bit``'s order (least significant bit first)."""
        if not self.ids:
            return b"\x00"
        bits = np.zeros((self.ids[-1] // 8 + 1) * 8, dtype=np.uint8)
        bits[np.array(self.ids, dtype=np.int64)] = 1
        return np.packbits(bits, bitorder="little").tobytes()

    @cached_property
    def array_literal(self) -> str:
        """The ids as one Postgres array literal, made once per set: handed to the driver as a list,
        each statement re-encoded every id in Python (several statements a search); as text it is
        one string to quote."""
        return "{" + ",".join(map(str, self.ids)) + "}"

    @cached_property
    def estimate(self) -> tuple[int, float]:
        """(visible chunks, visible share of all chunks), estimated from page counts (cheap)."""
        with read_connection().cursor() as cursor:
            cursor.execute(f"SELECT {ESTIMATE_SQL}")
            all_pages, chunk_rows = cursor.fetchone()
        return _estimate(len(self.ids), all_pages, chunk_rows)

    def clause(self, column: str, *, index: bool = False) -> tuple[str, list[Any]]:
        """SQL that is true when ``column`` (a page id) is visible, and its parameters.

        ``index=True`` asks for the form an index on ``column`` can serve.
        """
        if index or len(self.ids) <= ARRAY_MAX_IDS:
            return f"{column} = ANY(%s::bigint[])", [self.array_literal]
        # CASE keeps get_bit from reading past the bitmap (ids above the largest visible one).
        return (
            f"(CASE WHEN {column} < %s THEN get_bit(%s::bytea, {column}) = 1 ELSE false END)",
            [len(self.bitmap) * 8, self.bitmap],
        )


# What the plan choice needs besides the set itself: all published pages, and the chunk rows
# as the planner's statistics count them (no scan).
ESTIMATE_SQL = (
    "(SELECT count(*) FROM handbook_page WHERE status = 'published' AND deleted_at IS NULL),"
    " (SELECT GREATEST(reltuples, 0) FROM pg_class WHERE relname = 'search_chunk')"
)


def _estimate(visible_pages: int, all_pages: int, chunk_rows: float) -> tuple[int, float]:
    if not all_pages:
        return 0, 0.0
    share = min(1.0, visible_pages / all_pages)
    return int(chunk_rows * share), share


def visible_pages(user: Any, reader: Reader | None = None) -> VisiblePages:
    """The pages ``user`` may read (``visible_to``) and the estimate, after the reader (groups and
    readable spaces) whose statistics rank them.

    Read fresh unless nothing they may read has changed: the stamps of the scopes this reader may
    read (``handbook.models.ScopeStamp``, kept by triggers in the same transaction as each page
    change) come with the reader (``reader_of`` reads them in its own statement; read here when it
    did not); while they stand, the set computed with them is the set the permission query would
    return, and it is reused (a statement saved per search; bench.search times it).
    A change to pages the reader cannot read touches no stamp of theirs: it costs them nothing,
    not even a slower search.
    """
    reader = reader_of(user) if reader is None else reader
    if reader == NOBODY:
        return VisiblePages([], estimate=(0, 0.0), sorted_unique=True, reader=reader)
    connection = read_connection()
    database = (connection.alias, *(str(connection.settings_dict.get(k)) for k in ("NAME", "HOST", "PORT")))
    now = reader.current_stamps()
    key = (database, reader.key, now.digest)
    with _sets_lock:
        known = _sets.get(key)
    if known is not None:
        return known
    readable, stamps_params = reader.sql("s.space_id", "s.groups")
    with connection.cursor() as cursor:
        sql, params = readable_ids_sql_for_groups(None if reader.everything else tuple(reader.group_ids))
        # The set and the stamps it goes with from one statement (one snapshot). And the reader's
        # spaces as this statement sees them: if they or the stamps changed since ``reader_of``, the
        # set does not belong to this reader's key, and is not kept (kept, it hands its reader, and
        # the stamps that reader carries, to every search that finds it under this key).
        spaces_sql = spaces_of_groups_sql("SELECT unnest(%s::int[])")
        cursor.execute(
            f"SELECT (SELECT array_agg(id ORDER BY id) FROM ({sql}) AS v), {ESTIMATE_SQL}, {stamps_sql(readable)},"  # noqa: S608
            f" {spaces_sql}",
            [*params, *stamps_params, sorted(reader.group_ids), sorted(reader.group_ids)],
        )
        ids, all_pages, chunk_rows, stamp_rows, space_ids = cursor.fetchone()
    ids = ids or []
    visible = VisiblePages(ids, estimate=_estimate(len(ids), all_pages, chunk_rows), sorted_unique=True, reader=reader)
    same_spaces = reader.everything or frozenset(space_ids or ()) == reader.space_ids
    if same_spaces and ScopeStamps.from_rows(stamp_rows).digest == now.digest:
        with _sets_lock:
            _sets[key] = visible
    return visible


_sets: LRUCache[tuple[Any, ...], VisiblePages] = LRUCache(CACHED_SETS)
_sets_lock = threading.Lock()  # web threads share it, and cachetools' LRU is not thread-safe


def as_visible(visible: VisiblePages | Iterable[int]) -> VisiblePages:
    return visible if isinstance(visible, VisiblePages) else VisiblePages(visible)
