"""Ask's answer decision learns from its readers: Yes/No on answers and verified answers become labels
(``search/calibration/reader_labels.py``) only when readers agree or an editor confirms, only from pages
everyone reads, one vote per person and question; a refit is kept only when the shipped material
says it is no worse, and an admin can roll it back (``search/calibration/reader_fit.py``)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from search.calibration import reader_fit
from search.calibration.answer_fit import _questions, fit_answer_decision
from search.calibration.calibration_set import (
    CalibrationDataError,
    CalibrationPassage,
    CalibrationQuestion,
    CalibrationSet,
    calibration_set,
)
from search.calibration.query_fit import calibration_handbook
from search.calibration.reader_labels import ReaderLabel, reader_material, teaching_material
from search.decisions.answer import ANSWER
from search.decisions.policy import policy_for
from search.embedding.embedders import local_embedder
from search.models import AskLog, DecisionPolicy
from search.tasks import refit_answer_from_readers
from search.verified.services import verify_answer
from search.verified.wording import unit_hash

pytestmark = pytest.mark.django_db

LEAVE = "Everyone gets 27 days of paid leave a year."
BODY = (
    f"## Leave\n\n{LEAVE} Book them in the HR portal.\n\n"
    "## Remote work\n\nYou may work from home two days a week. Tell your manager which days by Friday.\n"
)
SECRET = "The merger with Initech closes in March."


@pytest.fixture
def people(make_space, make_page, make_user) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    """A page every member of staff reads, readers, an editor of its space, and a page only HR reads."""
    space = make_space("people")
    return {
        "page": make_page(space, "People", BODY),
        "hidden": make_page(space, "Board", f"## Plans\n\n{SECRET}\n", restricted_to=("hr",)),
        "readers": [make_user(name, "staff") for name in ("ann", "bob", "cy")],
        "hr": [make_user(name, "staff", "hr") for name in ("hana", "hugo")],
        "editor": make_user("eve", "editors"),
    }


def _rate(user: Any, question: str, helpful: bool, page: Any = None, quote: str = "") -> AskLog:
    mode = AskLog.Mode.EXTRACTIVE if page is not None else AskLog.Mode.NO_ANSWER
    citations = [{"ref": page.ref, "anchor": "", "revision": 1, "quote": quote}] if page is not None else []
    return AskLog.objects.create(
        user=user, question=question, language="en", mode=mode, answer=quote, citations=citations, helpful=helpful
    )


def test_a_readers_yes_teaches_only_when_another_reader_agrees(people):
    ann, bob, _cy = people["readers"]
    _rate(ann, "How much paid leave do I get?", True, people["page"], LEAVE)
    assert reader_material().questions == []

    _rate(bob, "how much paid leave do I get", True, people["page"], LEAVE)
    taught = reader_material()
    assert [(q.text, q.answer) for q in taught.questions] == [("How much paid leave do I get?", LEAVE)]
    assert LEAVE in taught.passages[taught.questions[0].passage or ""].text


def test_an_editor_of_the_pages_space_confirms_a_label_alone(people):
    _rate(people["editor"], "How much paid leave do I get?", True, people["page"], LEAVE)
    assert [q.answer for q in reader_material().questions] == [LEAVE]


def test_one_persons_repeated_labels_count_once(people):
    ann = people["readers"][0]
    for wording in ("How much paid leave do I get?", "how much PAID leave do I get", "How much paid leave, do I get?"):
        _rate(ann, wording, True, people["page"], LEAVE)
    taught = reader_material()
    assert taught.questions == []
    assert taught.counts["labels"] == 3 and taught.counts["votes"] == 1


def test_agreeing_noes_teach_a_wrong_sentence_not_an_unanswerable_question(people):
    quote = "You may work from home two days a week."
    for reader in people["readers"][:2]:
        _rate(reader, "Can I bring my dog to work?", False, people["page"], quote)
    taught = reader_material()
    assert taught.unanswerable == [] and taught.questions == []
    assert [(q.text, q.passage, q.not_answers) for q in taught.rejected] == [
        ("Can I bring my dog to work?", None, (quote,))
    ]
    assert any(quote in p.text for p in taught.passages.values())
    merged = taught.merged(SHIPPED)
    assert merged.unanswerable == SHIPPED.unanswerable and merged.rejected == tuple(taught.rejected)


def test_a_no_beside_a_yes_is_a_negative_of_the_answered_question():
    wrong, right = "Visitors use the south lot.", "Staff park in the north lot."
    taught = teaching_material(
        _agreeing("Where do staff park?", PARKING, wrong, False)
        + [ReaderLabel(p, "where do staff park", "en", True, PARKING, right) for p in ("dan", "flo", "gus")]
    )
    assert [(q.answer, q.not_answers) for q in taught.questions] == [(right, (wrong,))]
    assert taught.rejected == [] and taught.unanswerable == []


def test_a_no_on_a_no_answer_teaches_once_an_editor_verifies_an_answer(people):
    for reader in people["readers"]:
        _rate(reader, "How many holidays do we get?", False)
    assert reader_material().questions == []

    verify_answer(
        editor=people["editor"],
        question="How many holidays do we get?",
        page=people["page"],
        unit_hashes=[unit_hash(LEAVE)],
    )
    taught = reader_material()
    assert [(q.text, q.answer) for q in taught.questions] == [("How many holidays do we get?", LEAVE)]
    assert taught.counts["votes_on_verified_questions"] == 3


def test_a_page_not_everyone_reads_teaches_nothing(people):
    ann, bob, _cy = people["readers"]
    _rate(ann, "How much paid leave do I get?", True, people["page"], LEAVE)
    _rate(bob, "How much paid leave do I get?", True, people["page"], LEAVE)
    without = reader_material()

    for reader in people["hr"]:  # HR agrees on the hidden page, and its editor confirms too
        _rate(reader, "When does the merger close?", True, people["hidden"], SECRET)
        _rate(reader, "Is there a merger?", False, people["hidden"], SECRET)
    _rate(people["editor"], "When does the merger close?", True, people["hidden"], SECRET)
    with_hidden = reader_material()

    assert with_hidden.questions == without.questions and with_hidden.unanswerable == without.unanswerable
    assert with_hidden.merged(SHIPPED).digest() == without.merged(SHIPPED).digest()  # what the fit reads
    assert not any(SECRET in p.text for p in with_hidden.passages.values())


# --- the refit: a small stand-in for the shipped material keeps these tests fast ---------------

TOPICS = [
    ("leave", "Annual leave", f"{LEAVE} Book them in the HR portal.", "How much paid leave do I get?", LEAVE),
    ("remote", "Remote", "You may work from home two days a week. Tell your manager by Friday.",
     "How many days can I work from home?", "You may work from home two days a week."),
    ("expenses", "Expenses", "Submit your receipts in Tally within 30 days. Late claims are refused.",
     "When must I submit receipts?", "Submit your receipts in Tally within 30 days."),
    ("laptop", "Laptops", "IT gives every new starter a laptop on the first day. Lost laptops go to #it-help.",
     "When do I get a computer?", "IT gives every new starter a laptop on the first day."),
    ("security", "Passwords", "Passwords have at least 14 characters. Turn on two-factor authentication.",
     "minimum password length", "Passwords have at least 14 characters."),
    ("travel", "Travel", "Book trains and hotels through the travel desk. Flights need approval.",
     "Who books my hotel?", "Book trains and hotels through the travel desk."),
    ("payroll", "Payroll", "Salaries are paid on the 28th of each month. Payslips are in the HR portal.",
     "When is payday?", "Salaries are paid on the 28th of each month."),
    ("training", "Training", "Each person has a training budget of 1,000 EUR a year. Ask People to book it.",
     "How much can I spend on courses?", "Each person has a training budget of 1,000 EUR a year."),
    ("canteen", "Canteen", "The canteen serves lunch from noon to 2 pm. Vegetarian dishes are marked green.",
     "When is lunch served?", "The canteen serves lunch from noon to 2 pm."),
    ("sick", "Sick leave", "Call your manager before 9 am on a sick day. From the third day you need a note.",
     "Who do I tell when I am ill?", "Call your manager before 9 am on a sick day."),
    ("pension", "Pension", "The company adds 5% of your salary to your pension. You can add more in Workday.",
     "How much does the company put in my pension?", "The company adds 5% of your salary to your pension."),
    ("badge", "Badges", "Lost badges are replaced at reception. A new badge costs nothing the first time.",
     "I lost my badge", "Lost badges are replaced at reception."),
    ("bike", "Cycling", "Bikes are stored in the basement garage. Showers are on the first floor.",
     "Where can I leave my bike?", "Bikes are stored in the basement garage."),
    ("notice", "Resigning", "The notice period is one month. Hand your letter to the People team.",
     "How long is the notice period?", "The notice period is one month."),
]  # fmt: skip
SHIPPED = CalibrationSet(
    tuple(CalibrationPassage(pid, "en", page, "", text) for pid, page, text, _q, _a in TOPICS),
    tuple(CalibrationQuestion(q, "en", pid, a) for pid, _page, _text, q, a in TOPICS),
    tuple(
        CalibrationQuestion(q, "en", None)
        for q in (
            "Can I bring my dog?",
            "Is there a company car?",
            "gym membership",
            "Do we get stock options?",
            "Is there a Christmas party?",
            "Can I work from abroad?",
        )
    ),  # fmt: skip
    (("best pizza recipe", "en"), ("qsdfghjk", "en")),
)
PARKING = CalibrationPassage(
    "reader-chunk-1", "en", "Parking", "", "Staff park in the north lot. Visitors use the south lot."
)


@pytest.fixture
def small_shipped(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(reader_fit, "calibration_set", lambda *args, **kwargs: SHIPPED)


def _agreeing(question: str, passage: CalibrationPassage, quote: str, helpful: bool) -> list[ReaderLabel]:
    return [ReaderLabel(person, question, "en", helpful, passage, quote) for person in ("ann", "bob", "cy")]


def _good_labels() -> list[ReaderLabel]:
    return [
        *_agreeing("Where do staff park?", PARKING, "Staff park in the north lot.", True),
        *_agreeing("Where do visitors park?", PARKING, "Visitors use the south lot.", True),
    ]


THINGS = ("parking permits", "desk bookings", "visa letters", "gym passes", "bike racks", "phone plans",
          "coffee machines", "printer toner", "office keys", "lockers", "meeting rooms", "name badges")  # fmt: skip


def _bad_labels() -> list[ReaderLabel]:
    """Readers agreeing, page after page, that the sentence beside the answer is the answer."""
    out: list[ReaderLabel] = []
    for i, thing in enumerate(THINGS):
        passage = CalibrationPassage(
            f"reader-chunk-{i + 10}", "en", thing.title(), "",
            f"{thing.capitalize()} are handled by team {i}. The office opens at {i % 3 + 7} am on weekdays.",
        )  # fmt: skip
        wrong = f"The office opens at {i % 3 + 7} am on weekdays."
        out += _agreeing(f"Who handles {thing}?", passage, wrong, True)
        out += _agreeing(f"Which team deals with {thing}?", passage, wrong, True)
    return out


def _margin(material: CalibrationSet, question: str, sentence: str) -> float:
    """How far above (or below) the best other unit of ``question`` the answer decision fitted on
    ``material`` scores ``sentence`` (logits: the intercept, which more negatives move, cancels)."""
    embedder = local_embedder()
    decision = fit_answer_decision(material, calibration_handbook(material, embedder), embedder)
    asked = CalibrationSet(material.passages, (), (CalibrationQuestion(question, "en", None),), material.no_match)
    (q,) = _questions(asked, calibration_handbook(asked, embedder), embedder)
    scored = [(decision.logit(c.features().values()), sentence in c.unit.text) for c in q.units]
    return max(s for s, is_it in scored if is_it) - max(s for s, is_it in scored if not is_it)


def test_a_fit_with_negative_units_ranks_the_rejected_sentence_lower():
    """Readers said No, question after question, to the sentence on opening hours beside the answer;
    fitted with those negatives, the decision scores that sentence lower against the others than
    without them."""
    rejected, passages = [], list(SHIPPED.passages)
    for i, thing in enumerate(THINGS):
        text = f"{thing.capitalize()} are handled by team {i}. The office opens at {i % 3 + 7} am on weekdays."
        passages.append(CalibrationPassage(f"reader-chunk-{i + 10}", "en", thing.title(), "", text))
        wrong = f"The office opens at {i % 3 + 7} am on weekdays."
        rejected.append(CalibrationQuestion(f"Who handles {thing}?", "en", None, not_answers=(wrong,)))
    without = CalibrationSet(tuple(passages), SHIPPED.questions, SHIPPED.unanswerable, SHIPPED.no_match)
    with_negatives = replace(without, rejected=tuple(rejected))
    question, sentence = "Who handles parking permits?", "The office opens at 7 am on weekdays."

    assert _margin(with_negatives, question, sentence) < _margin(without, question, sentence)


def test_negatives_only_questions_are_left_out_of_the_threshold_rules():
    embedder = local_embedder()
    wrong = "Bikes are stored in the basement garage."
    extra = (CalibrationQuestion("Where is the gym?", "en", None, not_answers=(wrong,)),)
    material = replace(SHIPPED, rejected=extra)
    questions = _questions(material, calibration_handbook(material, embedder), embedder)
    (only,) = [q for q in questions if q.negatives_only]
    assert only.units and all(wrong in c.unit.text or c.unit.text in wrong for c in only.units)
    assert only.labels == [0] * len(only.units)
    report = fit_answer_decision(material, calibration_handbook(material, embedder), embedder).report
    assert report["examples"]["negatives_only_questions"] == 1


def test_a_refit_the_safety_check_accepts_updates_the_answer_decision_and_keeps_the_previous(small_shipped):
    before = policy_for(local_embedder().model_name)
    assert before is not None

    report = reader_fit.refit_from_readers(local_embedder(), teaching_material(_good_labels()))

    assert report["accepted"], report
    row = DecisionPolicy.objects.get(model=local_embedder().model_name)
    assert row.report["readers"]["shipped_material"]["before"] == report["shipped_material"]["before"]
    assert row.report["readers"]["labels"]["taught_answerable"] == 2
    assert row.decisions[ANSWER] != before.decisions[ANSWER].as_json()
    assert row.previous["decisions"][ANSWER] == before.decisions[ANSWER].as_json()
    assert policy_for(row.model).decisions[ANSWER].as_json() == row.decisions[ANSWER]  # processes read it again


def test_a_bad_batch_of_agreeing_labels_is_refused_and_the_policy_stays(small_shipped):
    assert reader_fit.refit_from_readers(local_embedder(), teaching_material(_good_labels()))["accepted"]
    kept = DecisionPolicy.objects.get()

    report = reader_fit.refit_from_readers(local_embedder(), teaching_material(_good_labels() + _bad_labels()))

    assert report["accepted"] is False and report["shipped_material"]["worse"], report
    row = DecisionPolicy.objects.get()
    assert (row.decisions, row.previous, row.report) == (kept.decisions, kept.previous, kept.report)


def test_an_admin_rolls_back_to_the_previous_fit(small_shipped, client, make_user):
    before = policy_for(local_embedder().model_name)
    assert reader_fit.refit_from_readers(local_embedder(), teaching_material(_good_labels()))["accepted"]
    row = DecisionPolicy.objects.get()
    client.force_login(make_user("root", superuser=True))
    page = client.get(f"/admin/search/decisionpolicy/{row.pk}/change/").content.decode()
    shown = row.report["readers"]["shipped_material"]
    assert f"<td>balanced_accuracy</td><td>{shown['before']['balanced_accuracy']}</td>" in page

    response = client.post(
        "/admin/search/decisionpolicy/", {"action": "roll_back_selected", "_selected_action": [row.pk]}
    )

    assert response.status_code == 302
    row.refresh_from_db()
    assert row.decisions[ANSWER] == before.decisions[ANSWER].as_json() and row.previous == {}
    assert policy_for(row.model).decisions[ANSWER].as_json() == before.decisions[ANSWER].as_json()
    with pytest.raises(reader_fit.RollbackError):
        reader_fit.roll_back(row)


def test_the_daily_task_refits_nothing_while_no_label_teaches(people):
    _rate(people["readers"][0], "How much paid leave do I get?", True, people["page"], LEAVE)

    report = refit_answer_from_readers.delay().get()

    assert report["accepted"] is False and report["labels"]["votes"] == 1
    assert not DecisionPolicy.objects.exists()


def test_extra_material_carries_not_answers(tmp_path):
    extra = tmp_path / "company.jsonl"
    lines = [
        {"id": "park", "language": "en", "page": "Parking", "heading": "", "text": PARKING.text},
        {"question": "Where do staff park?", "language": "en", "passage": "park",
         "answer": "Staff park in the north lot.", "not_answers": ["Visitors use the south lot."]},
        {"question": "Can I park a van?", "language": "en", "not_answers": ["Staff park in the north lot."]},
    ]  # fmt: skip
    extra.write_text("\n".join(json.dumps(line) for line in lines), encoding="utf-8")
    material = calibration_set([extra])
    shipped = calibration_set()

    assert material.questions[-1].not_answers == ("Visitors use the south lot.",)
    assert [(q.text, q.not_answers) for q in material.rejected] == [
        ("Can I park a van?", ("Staff park in the north lot.",))
    ]
    assert material.unanswerable == shipped.unanswerable and material.digest() != shipped.digest()
    extra.write_text(json.dumps(lines[2] | {"not_answers": ["No such sentence."]}), encoding="utf-8")
    with pytest.raises(CalibrationDataError):
        calibration_set([extra])
