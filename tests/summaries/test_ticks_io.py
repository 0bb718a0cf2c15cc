"""ticks_export / ticks_import: a round trip loses nothing; a bad row imports nothing and is named."""

from __future__ import annotations

import json

import pytest

from summaries.models import SummaryPick
from summaries.ticks_io import TicksImportError, ticks_export, ticks_import
from tests.summaries.ticked_pages import body, candidates_of, tick

pytestmark = pytest.mark.django_db


@pytest.fixture
def picked(make_user, make_space, make_page):  # type: ignore[no-untyped-def]
    editor = make_user("alice", "editors")
    space = make_space("hr")
    pages = [make_page(space, f"Page {i}", body(i), index=False) for i in range(3)]
    tick(pages[0], 0, editor)
    SummaryPick.objects.create(
        page=pages[1], revision=pages[1].published_revision, units=candidates_of(pages[1])[1:3], editor=None
    )
    return pages


def _fields(pick: SummaryPick) -> tuple:  # type: ignore[type-arg]
    return (pick.page_id, pick.revision_id, pick.units, pick.editor_id, pick.picked_at)


def test_the_round_trip_loses_nothing(picked) -> None:  # type: ignore[no-untyped-def]
    before = sorted(_fields(p) for p in SummaryPick.objects.all())
    rows = [json.loads(json.dumps(row)) for row in ticks_export()]  # through JSON, as a file would
    assert {r["type"] for r in rows} == {"summary_pick"} and {r["page"] for r in rows} == {
        picked[0].ref,
        picked[1].ref,
    }
    assert all(picked[0].published_revision.body not in json.dumps(r) for r in rows)  # addresses, not text
    SummaryPick.objects.all().delete()

    assert ticks_import(rows) == 2
    assert sorted(_fields(p) for p in SummaryPick.objects.all()) == before
    assert ticks_import(rows) == 2  # again: the same picks, not twice as many
    assert SummaryPick.objects.count() == 2


def test_export_of_some_spaces_only(picked, make_space, make_page) -> None:  # type: ignore[no-untyped-def]
    other = make_space("it")
    tick(make_page(other, "Laptops", body(50), index=False), 0)
    assert {r["space"] for r in ticks_export(spaces=[other])} == {"it"}
    assert len(list(ticks_export())) == 3


def test_a_bad_row_imports_nothing_and_every_bad_row_is_named(picked) -> None:  # type: ignore[no-untyped-def]
    rows = list(ticks_export())
    SummaryPick.objects.all().delete()
    bad = [
        rows[0],
        {**rows[1], "page": "no-such-page"},
        {**rows[1], "units": ["0123456789abcdef"]},
        {**rows[1], "revision_hash": "0" * 64},
        {**rows[1], "editor": "ghost"},
        {"type": "verified_answer"},
        {**rows[0]},  # the same page twice
    ]
    with pytest.raises(TicksImportError) as raised:
        ticks_import(bad)
    errors = raised.value.errors
    assert [e.split(":")[0] for e in errors] == ["row 2", "row 3", "row 4", "row 5", "row 6", "row 7"]
    assert "no page with reference 'no-such-page'" in errors[0]
    assert "not in revision 1" in errors[1] and "no revision with the picked text" in errors[2]
    assert "no account named 'ghost'" in errors[3] and "not a summary pick" in errors[4]
    assert "earlier row" in errors[5]
    assert not SummaryPick.objects.exists()


def test_a_revision_renumbered_elsewhere_is_found_by_its_text(picked) -> None:  # type: ignore[no-untyped-def]
    row = next(iter(ticks_export()))
    SummaryPick.objects.all().delete()
    assert ticks_import([{**row, "revision": 7}]) == 1
    assert SummaryPick.objects.get().revision_id == picked[0].published_revision_id
