"""Verified answers leave and come back as JSONL (manage.py teaching), and Insights lists what
editors should act on."""

from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

from handbook.services import page_save
from search.models import VerifiedAnswer, VerifiedQuestion
from search.verified.selectors import picker_sections, verified_insights
from search.verified.services import mark_not_in_handbook, verify_answer
from search.verified.wording import unit_hash
from summaries.features import quotable_units
from summaries.features import unit_hash as pick_address
from summaries.models import SummaryPick

LEAVE = "# Leave\n\nEveryone gets 25 days of paid leave a year.\n\nUnused days expire on 31 March.\n"


@pytest.fixture
def taught(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    people = make_space("people", viewers=("staff",), editors=("editors",))
    leave = make_page(people, "Leave", LEAVE, ref="leave")
    editor = make_user("erin", "staff", "editors")
    first = next(h for section in picker_sections(leave) for h, _u in section.units)
    verify_answer(editor=editor, question="How many days of leave do I get?", page=leave, unit_hashes=[first])
    mark_not_in_handbook(editor=editor, question="Can I bring my dog?", space=people)
    return {"people": people, "leave": leave, "editor": editor}


@pytest.mark.django_db
def test_export_then_import_round_trip(taught, tmp_path, capsys):
    out = tmp_path / "taught.jsonl"
    call_command("teaching", "export", "--output", str(out))
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["kind"] for r in rows} == {"answer", "gap"}
    assert next(r for r in rows if r["kind"] == "answer")["page"] == "leave"
    before = list(VerifiedAnswer.objects.order_by("kind").values_list("kind", "question", "units", "editor__username"))
    VerifiedAnswer.objects.all().delete()
    call_command("teaching", "import", str(out))
    assert json.loads(capsys.readouterr().out) == {"imported": 2, "skipped": 0, "summary_picks": 0}
    after = list(VerifiedAnswer.objects.order_by("kind").values_list("kind", "question", "units", "editor__username"))
    assert after == before
    assert VerifiedQuestion.objects.filter(embedding__isnull=False).count() == 2  # vectors computed again
    call_command("teaching", "import", str(out))  # twice: nothing doubled
    assert VerifiedAnswer.objects.count() == 2


@pytest.mark.django_db
def test_a_bad_line_imports_nothing_and_names_the_line(taught, tmp_path):
    out = tmp_path / "taught.jsonl"
    call_command("teaching", "export", "--output", str(out))
    lines = out.read_text().splitlines()
    bad = json.loads(lines[0]) | {"space": "nowhere"}
    out.write_text("\n".join([lines[1], json.dumps(bad)]) + "\n")
    VerifiedAnswer.objects.all().delete()
    with pytest.raises(CommandError, match="line 2: no space 'nowhere'"):
        call_command("teaching", "import", str(out))
    assert not VerifiedAnswer.objects.exists()
    out.write_text("{not json\n")
    with pytest.raises(CommandError, match="line 1: not JSON"):
        call_command("teaching", "import", str(out))


@pytest.mark.django_db
def test_insights_lists_changed_answers_and_marked_gaps(taught, make_user):
    editor, leave = taught["editor"], taught["leave"]
    state = verified_insights(editor)
    assert state.count == 1 and not state.changed
    assert [g.question for g in state.gaps] == ["Can I bring my dog?"]
    page_save(page=leave, title="Leave", body=LEAVE + "\nAsk your manager first.\n", author=editor)
    changed = verified_insights(editor).changed
    assert [v.question for v, _reply in changed] == ["How many days of leave do I get?"]
    assert changed[0][1].changed and changed[0][1].quotes
    reader = make_user("rob", "staff")
    state = verified_insights(reader)
    assert not state.changed and not state.gaps and state.count == 0


@pytest.mark.django_db
def test_unit_hash_ignores_spacing_only():
    assert unit_hash("Unused  days expire.") == unit_hash("Unused days expire.")
    assert unit_hash("Unused days expire.") != unit_hash("Unused days expire!")


@pytest.mark.django_db
def test_summary_picks_travel_with_the_answers(taught, tmp_path, capsys):
    leave = taught["leave"]
    first = pick_address(quotable_units(leave.published_revision.body)[0].text)
    SummaryPick.objects.create(page=leave, revision=leave.published_revision, units=[first], editor=taught["editor"])
    out = tmp_path / "taught.jsonl"
    call_command("teaching", "export", "--output", str(out))
    assert sorted(json.loads(line)["type"] for line in out.read_text().splitlines()) == [
        "summary_pick",
        "verified_answer",
        "verified_answer",
    ]
    SummaryPick.objects.all().delete()
    VerifiedAnswer.objects.all().delete()
    call_command("teaching", "import", str(out))
    assert json.loads(capsys.readouterr().out) == {"imported": 2, "skipped": 0, "summary_picks": 1}
    assert SummaryPick.objects.get().units == [first]
    bad = out.read_text().replace('"summary_pick"', '"summary_pik"')
    out.write_text(bad)
    SummaryPick.objects.all().delete()
    VerifiedAnswer.objects.all().delete()
    with pytest.raises(CommandError, match='must be "verified_answer" or "summary_pick"'):
        call_command("teaching", "import", str(out))
    assert not VerifiedAnswer.objects.exists()  # nothing of the good lines either
