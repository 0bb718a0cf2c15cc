"""Keyword candidates read their tsvector from the chunk row, never from TOAST (migration 0010)."""

from __future__ import annotations

import importlib

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def _storage() -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attname, attstorage FROM pg_attribute"
            " WHERE attrelid = 'search_chunk'::regclass AND attnum > 0 AND NOT attisdropped"
        )
        return dict(cursor.fetchall())


def test_every_column_but_the_text_stays_in_the_row():  # type: ignore[no-untyped-def]
    migration = importlib.import_module("search.migrations.0010_chunk_search_vector_inline")
    storage = _storage()
    # "m": compressed if need be, moved out of the row only past ~8 kB; the text ("x") goes first.
    assert {column: storage[column] for column in migration.IN_ROW} == dict.fromkeys(migration.IN_ROW, "m")
    assert storage["text"] == "x"
    assert storage["embedding"] == "p"  # plain since 0006: vector scans never detoast


def test_chunks_over_the_toast_threshold_move_their_text_out_not_their_tsvector(make_space, make_page):  # type: ignore[no-untyped-def]
    import random

    rng = random.Random(7)
    # Hard-to-compress words: each ~800-character chunk, with its embedding, is over the 2 kB threshold.
    words = " ".join(
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(4, 11))) for _ in range(700)
    )
    page = make_page(make_space("people"), "Long page", words)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_column_toast_chunk_id(search_vector), pg_column_toast_chunk_id(text), embedding IS NOT NULL"
            " FROM search_chunk WHERE page_id = %s",
            [page.pk],
        )
        rows = cursor.fetchall()
    assert len(rows) >= 3 and all(embedded for _tsv, _text, embedded in rows)
    assert any(text is not None for _tsv, text, _e in rows)  # the rows really were over the threshold…
    assert all(tsvector is None for tsvector, _text, _e in rows)  # …and their tsvectors stayed in the row
