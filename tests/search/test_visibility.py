"""The two SQL forms of a visible set (id array, bitmap) select exactly the same pages."""

from __future__ import annotations

import random

import pytest
from django.db import connection

from search.retrieval import visibility
from search.retrieval.visibility import VisiblePages, as_visible

pytestmark = pytest.mark.django_db


def _selected(visible: VisiblePages, upto: int, *, index: bool = False) -> set[int]:
    clause, params = visible.clause("n", index=index)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT n FROM generate_series(0, %s) AS n WHERE {clause}", [upto, *params])  # noqa: S608
        return {row[0] for row in cursor.fetchall()}


@pytest.mark.parametrize("seed", range(5))
def test_bitmap_and_array_forms_select_the_same_ids(seed, monkeypatch):  # type: ignore[no-untyped-def]
    rng = random.Random(seed)
    ids = set(rng.sample(range(0, 5000), rng.randint(1, 3000))) | {0}
    visible = VisiblePages(ids)
    monkeypatch.setattr(visibility, "ARRAY_MAX_IDS", 0)
    bitmap_sql, _ = visible.clause("n")
    assert "get_bit" in bitmap_sql
    # Ids past the largest visible one (beyond the bitmap) are simply not visible, never an error.
    assert _selected(visible, 6000) == ids
    monkeypatch.setattr(visibility, "ARRAY_MAX_IDS", 10_000)
    assert "ANY" in visible.clause("n")[0]
    assert _selected(visible, 6000) == ids


def test_large_sets_use_the_bitmap_unless_an_index_should_serve(monkeypatch):  # type: ignore[no-untyped-def]
    visible = VisiblePages(range(1, visibility.ARRAY_MAX_IDS + 2))
    assert "get_bit" in visible.clause("c.page_id")[0]
    assert "ANY" in visible.clause("c.page_id", index=True)[0]
    assert "ANY" in VisiblePages([3, 1, 2]).clause("c.page_id")[0]
    # The id list goes as one array literal, encoded once per set (not re-encoded per statement).
    assert VisiblePages([3, 1, 2]).clause("c.page_id")[1] == ["{1,2,3}"]
    assert _selected(visible, visibility.ARRAY_MAX_IDS + 10) == set(visible)


def test_an_empty_set_selects_nothing():  # type: ignore[no-untyped-def]
    visible = VisiblePages([])
    assert not visible and len(visible) == 0
    assert _selected(visible, 100) == set()


def test_as_visible_keeps_a_visible_set_and_wraps_ids():  # type: ignore[no-untyped-def]
    visible = VisiblePages([5, 5, 2])
    assert as_visible(visible) is visible
    assert list(as_visible([9, 4])) == [4, 9]
    assert list(visible) == [2, 5]
