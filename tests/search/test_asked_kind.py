"""The kind of answer a question asks for, in English and French, and whether a unit holds it: a date or a
day for "when", an amount with its unit for "how much", a number with what it counts for "how many", a
person or team for "who". A table row holds what its cells hold, named by their headers. The match is a
feature value whose weight only a fit gives (no database: units built by hand)."""

from __future__ import annotations

import pytest

from search.ask.asked_kind import HOW_MANY, HOW_MUCH, NUMBER, WHEN, WHERE, WHO, asked_kind, holds, kind_match
from search.decisions.answer import FEATURES, UnitFeatures
from search.decisions.policy import Decision
from statements.answer_units import Unit, page_units


def _unit(text: str) -> Unit:
    return Unit(text, "sentence", "", "", text)


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("When are salaries paid?", WHEN),
        ("What is the deadline for expense claims?", WHEN),
        ("Which day is the team meeting?", WHEN),
        ("Quand le salaire est-il versé ?", WHEN),
        ("Quelle est la date limite pour les notes de frais ?", WHEN),
        ("Jusqu'à quand puis-je poser mes congés ?", WHEN),
        ("How much is the meal allowance?", HOW_MUCH),
        ("What is the per diem for Norway?", HOW_MUCH),
        ("Combien coûte le déjeuner à la cantine ?", HOW_MUCH),
        ("Quel est le montant du per diem pour la Norvège ?", HOW_MUCH),
        ("How many days of annual leave do I get?", HOW_MANY),
        ("number of people in the large meeting room", HOW_MANY),
        ("combien de jours de congés ai-je ?", HOW_MANY),
        ("Quel nombre de jours de télétravail par semaine ?", HOW_MANY),
        ("How long is the notice period?", NUMBER),
        ("Combien de temps dure la période d'essai ?", NUMBER),
        ("What is the minimum password length?", NUMBER),
        ("who approves my expense report", WHO),
        ("Which team handles laptops?", WHO),
        ("à qui envoyer mon arrêt maladie", WHO),
        ("Qui valide mes congés ?", WHO),
        ("where do I book a train", WHERE),
        ("can I bring my dog to the office", ""),
        ("les salariés qui travaillent à distance", ""),  # a relative "qui" asks for no one
    ],
)
def test_what_a_question_asks_for(question: str, kind: str) -> None:
    assert asked_kind(question) == kind


@pytest.mark.parametrize(
    ("kind", "holding", "not_holding"),
    [
        (WHEN, "Salaries are paid on the last working day of the month.", "Salaries are paid by bank transfer."),
        (WHEN, "Les salaires sont versés le 20 de chaque mois.", "Les salaires sont versés par virement."),
        (WHEN, "Expense claims are due within 30 days of the trip.", "Expense claims need a receipt."),
        (WHEN, "La réunion d'équipe a lieu chaque lundi matin.", "La réunion d'équipe se tient en visio."),
        (WHEN, "Timesheets close on Friday at 17:00.", "Timesheets are filled in the HR tool."),
        (HOW_MUCH, "The meal allowance is 25 € per day.", "The meal allowance covers lunch and dinner."),
        (HOW_MUCH, "Le plafond est de 1 200 euros par an.", "Le plafond est fixé par la direction."),
        (HOW_MUCH, "The employer pays 50% of the transit pass.", "The employer pays part of the transit pass."),
        (HOW_MANY, "Full-time employees get 27 working days of leave.", "Full-time employees get paid leave."),
        (HOW_MANY, "Chaque salarié a droit à deux jours de télétravail.", "Chaque salarié peut télétravailler."),
        (NUMBER, "Passwords have at least 14 characters.", "Passwords must be long and unique."),
        (WHO, "Your manager approves expense reports.", "Expense reports are approved before payment."),
        (WHO, "Écrivez à l'équipe RH pour tout arrêt maladie.", "Envoyez l'arrêt maladie sous 48 heures."),
        (WHO, "Send the form to payroll@example.com.", "Send the form before the end of the week."),
    ],
)
def test_a_unit_holds_the_kind_asked_or_not(kind: str, holding: str, not_holding: str) -> None:
    assert holds(kind, _unit(holding))
    assert not holds(kind, _unit(not_holding))
    assert kind_match(kind, _unit(holding)) == 1.0
    assert kind_match(kind, _unit(not_holding)) == -1.0


def test_nothing_in_particular_asked_matches_every_unit_alike() -> None:
    question = "can I bring my dog to the office"
    assert {kind_match(asked_kind(question), _unit(t)) for t in ("Dogs are welcome on Fridays.", "No pets.")} == {0.0}


def test_a_table_row_with_its_header_counts_as_holding_a_number() -> None:
    """GIVEN a table whose number cells say nothing of what they count THEN the row, named by its headers,
    holds a number with what it counts; a row of words alone does not."""
    page = "## Leave\n\n| Type | Days |\n|---|---|\n| Annual | 27 |\n| Sick | on certificate |\n"
    annual, sick = [u for u in page_units(page) if u.kind == "row"]
    assert annual.header == ("Type", "Days") and "Days: 27" in annual.text
    assert holds(HOW_MANY, annual) and kind_match(HOW_MANY, annual) == 1.0
    assert kind_match(asked_kind("How many days of sick leave do I get?"), sick) == -1.0
    # the same cells without their header say nothing of what "27" counts
    bare = Unit("Annual; 27", "row", "", "", "Annual 27", cells=("Annual", "27"))
    assert not holds(HOW_MANY, bare)


def test_the_match_is_a_feature_a_fitted_decision_weighs() -> None:
    """The match is a feature value with no weight of its own: a decision that takes it ranks a unit of the
    kind asked above one without by its fitted weight alone."""
    asked = asked_kind("When are salaries paid?")
    dated, undated = _unit("Salaries are paid on the 25th."), _unit("Salaries are paid by transfer.")
    matches = [UnitFeatures(0.5, 0.0, 0.8, False, kind_match(asked, u)).values() for u in (dated, undated)]
    assert [m["kind_match"] for m in matches] == [1.0, -1.0]
    features = (*FEATURES, "kind_match")
    weights = tuple(0.5 if f == "kind_match" else 1.0 for f in features)
    decision = Decision(features, weights, 0.0, {})
    assert decision.logit(matches[0]) - decision.logit(matches[1]) == pytest.approx(1.0)
    assert Decision(FEATURES, weights[:-1], 0.0, {}).logit(matches[0]) == pytest.approx(
        Decision(FEATURES, weights[:-1], 0.0, {}).logit(matches[1])
    )  # a decision fitted without it is not moved by it


def test_the_right_kind_share_counts_only_questions_asking_for_a_kind() -> None:
    from search.calibration.answer_fit import right_kind

    answered = [
        ("When are salaries paid?", _unit("Salaries are paid on the 25th.")),
        ("How much is the meal allowance?", _unit("The meal allowance covers lunch.")),
        ("can I bring my dog to the office", _unit("Dogs are welcome.")),  # asks for no kind: not counted
    ]
    assert right_kind(answered) == {"questions": 2, "share": 0.5}
    assert right_kind([]) == {"questions": 0, "share": 0.0}
