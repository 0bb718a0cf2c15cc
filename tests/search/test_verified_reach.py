"""Verified answers reach owners (the review digest) and travel with their space (the space
export), each only as far as the person may read."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core import mail

from handbook.markdown_import.export import space_export
from handbook.models import Page
from handbook.review_digest import review_digests_send
from handbook.services import page_save
from search.verified.selectors import picker_sections
from search.verified.services import mark_not_in_handbook, verify_answer
from search.verified.transfer import EXPORT_PATH

TAXIS = "# Taxis\n\nTaxis are refunded after 22:00.\n\nKeep the receipt.\n"
BOARD = "# Board cars\n\nBoard members have a company car.\n"


@pytest.fixture
def taught(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    people = make_space("people", viewers=("staff",), editors=("editors",))
    taxis = make_page(people, "Taxis", TAXIS, ref="taxis")
    board = make_page(people, "Board cars", BOARD, ref="board", restricted_to=("board",))
    owner = make_user("olga", "staff", "editors", "board")
    owner.email = "olga@example.com"
    owner.save()
    for page, question in ((taxis, "Are taxis refunded at night?"), (board, "Do board members get a car?")):
        unit = next(h for section in picker_sections(page) for h, _u in section.units)
        verify_answer(editor=owner, question=question, page=page, unit_hashes=[unit])
    mark_not_in_handbook(editor=owner, question="Can I bring my dog?", space=people)
    return {"people": people, "taxis": taxis, "board": board, "owner": owner}


@pytest.mark.django_db
def test_the_digest_tells_the_owner_of_a_changed_page(taught):
    taxis, owner = taught["taxis"], taught["owner"]
    Page.objects.filter(pk=taxis.pk).update(owner_user=owner)
    assert review_digests_send() == 0  # nothing changed yet
    page_save(page=taxis, title="Taxis", body=TAXIS + "\nUse the company app.\n", author=owner)
    assert review_digests_send() == 1
    (message,) = mail.outbox
    assert message.to == ["olga@example.com"] and message.subject == "Handbook answers to check"
    assert "“Are taxis refunded at night?” — Taxis" in message.body
    assert "/ask/verify/?q=Are+taxis+refunded+at+night%3F&page=" in message.body


@pytest.mark.django_db
def test_an_owner_who_cannot_read_the_page_is_not_told(taught, make_user):
    board = taught["board"]
    outsider = make_user("otto", "staff", "editors")
    outsider.email = "otto@example.com"
    outsider.save()
    Page.objects.filter(pk=board.pk).update(owner_user=outsider)
    page_save(page=board, title="Board cars", body=BOARD + "\nIt is electric.\n", author=taught["owner"])
    assert review_digests_send() == 0 and mail.outbox == []


def _exported(space, user) -> list[str]:  # type: ignore[no-untyped-def]
    out = io.BytesIO()
    space_export(space, out, user=user)
    with zipfile.ZipFile(out) as archive:
        if EXPORT_PATH not in archive.namelist():
            return []
        return archive.read(EXPORT_PATH).decode().splitlines()


@pytest.mark.django_db
def test_the_space_export_carries_only_what_its_exporter_may_read(taught, make_user):
    people = taught["people"]
    full = _exported(people, None)
    assert len(full) == 3
    editor = make_user("ed", "staff", "editors")  # edits the space, not in "board"
    mine = _exported(people, editor)
    assert len(mine) == 2 and not any("board" in line.lower() for line in mine)
    reader = make_user("rita", "staff")
    theirs = _exported(people, reader)
    assert len(theirs) == 1 and "Are taxis refunded" in theirs[0]  # no gaps: editors' notes


@pytest.mark.django_db
def test_the_space_export_carries_the_summary_picks_of_its_pages(taught, make_user):
    from summaries.features import quotable_units, unit_hash
    from summaries.models import SummaryPick
    from summaries.ticks_io import EXPORT_PATH as PICKS

    for page in (taught["taxis"], taught["board"]):
        first = unit_hash(quotable_units(page.published_revision.body)[0].text)
        SummaryPick.objects.create(page=page, revision=page.published_revision, units=[first], editor=taught["owner"])
    out = io.BytesIO()
    space_export(taught["people"], out, user=make_user("rita", "staff"))
    with zipfile.ZipFile(out) as archive:
        rows = [json.loads(line) for line in archive.read(PICKS).decode().splitlines()]
    assert [row["page"] for row in rows] == ["taxis"]  # not the restricted page
