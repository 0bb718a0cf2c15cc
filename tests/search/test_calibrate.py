"""A second embedding model (another similarity scale) with no policy, then calibrated.

Before ``manage.py calibrate``: safe — only pages holding the query's words are results (gibberish
finds nothing, a question with the handbook's words still finds its page), Ask answers from the
words, and the admin and the logs say the decisions are missing. After: the stored policy decides.
"""

from __future__ import annotations

import json
import logging
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from search.admin import index_overview
from search.ask.answers import answer_question
from search.decisions.policy import policy_for
from search.decisions.retrieval import NEUTRAL
from search.models import DecisionPolicy
from search.retrieval.pipeline import retrieve

pytestmark = pytest.mark.django_db

PASSAGES = [
    ("remote", "Remote work", "You may work from home two days a week. Tell your manager which days by Friday."),
    ("expenses", "Expenses", "Submit your receipts in Tally within 30 days of the purchase. Late claims are refused."),
    ("leave", "Annual leave", "Everyone gets 27 days of paid leave a year. Book them in the HR portal."),
    (
        "laptop",
        "Laptops",
        "IT gives every new starter a laptop on the first day. Lost laptops are reported to #it-help.",
    ),
    ("security", "Passwords", "Passwords have at least 14 characters. Turn on two-factor authentication everywhere."),
    ("travel", "Travel", "Book trains and hotels through the travel desk. Flights need your manager's approval."),
    ("payroll", "Payroll", "Salaries are paid on the 28th of each month. Payslips are in the HR portal."),
    ("training", "Training", "Each person has a training budget of 1,000 EUR a year. Ask the People team to book it."),
]
QUESTIONS = [
    ("How many days can I work from home?", "remote", "You may work from home two days a week."),
    ("Can I do my job at my house?", "remote", "You may work from home two days a week."),
    ("When must I submit receipts?", "expenses", "Submit your receipts in Tally within 30 days of the purchase."),
    ("expense claim deadline", "expenses", "Submit your receipts in Tally within 30 days of the purchase."),
    ("How much paid leave do I get?", "leave", "Everyone gets 27 days of paid leave a year."),
    ("holiday allowance", "leave", "Everyone gets 27 days of paid leave a year."),
    ("I lost my laptop", "laptop", "Lost laptops are reported to #it-help."),
    ("When do I get a computer?", "laptop", "IT gives every new starter a laptop on the first day."),
    ("minimum password length", "security", "Passwords have at least 14 characters."),
    ("Do I need 2FA?", "security", "Turn on two-factor authentication everywhere."),
    ("Who books my hotel?", "travel", "Book trains and hotels through the travel desk."),
    ("Can I take a plane for work?", "travel", "Flights need your manager's approval."),
    ("When is payday?", "payroll", "Salaries are paid on the 28th of each month."),
    ("where are my payslips", "payroll", "Payslips are in the HR portal."),
    ("How much can I spend on courses?", "training", "Each person has a training budget of 1,000 EUR a year."),
    ("conference budget", "training", "Each person has a training budget of 1,000 EUR a year."),
]
UNANSWERABLE = ["Can I bring my dog to work?", "Is there a company car?", "Do we get stock options?", "gym membership"]
NO_MATCH = [
    "how long do cats live",
    "best pizza recipe",
    "who won the world cup in 1998",
    "qsdfghjklm",
    "asdfgh",
    "zzzz xxxx",
    "capital of australia",
    "how to grow tomatoes",
    "what is the speed of light",
    "recette de la blanquette",
    "wxcvbn poiuyt",
    "how to change a car tyre",
    "lyrics of yesterday",
    "when do swallows migrate",
    "chess opening for beginners",
    "plkjhg",
]


@pytest.fixture
def handbook(second_model, make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    """Bob reads a small handbook indexed by the stand-in model (it serves: the index was empty)."""
    space = make_space("people", viewers=("staff",))
    for ref, title, text in PASSAGES[:3]:
        make_page(space, title, f"# {title}\n\n{text}", ref=ref)
    return make_user("bob", "staff")


def _material(tmp_path):  # type: ignore[no-untyped-def]
    path = tmp_path / "ours.jsonl"
    lines = [{"id": r, "language": "en", "page": t, "heading": "", "text": x} for r, t, x in PASSAGES]
    lines += [{"question": q, "language": "en", "passage": r, "answer": a} for q, r, a in QUESTIONS]
    lines += [{"question": q, "language": "en", "unanswerable": True} for q in UNANSWERABLE]
    lines += [{"query": q, "language": "en"} for q in NO_MATCH]
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return path


def _refs(query: str, user) -> list[str]:  # type: ignore[no-untyped-def]
    from handbook.models import Page

    refs = dict(Page.objects.values_list("id", "ref"))
    return [refs[p.page_id] for p in retrieve(query, user).pages]


def test_without_a_policy_the_words_decide_and_it_is_said(second_model, handbook, caplog):  # type: ignore[no-untyped-def]
    with caplog.at_level(logging.WARNING, logger="search.decisions.policy"):
        nonsense = retrieve("qsdfghjklm", handbook)
    assert nonsense.pages == [] and nonsense.decision is not None
    assert nonsense.decision.features is not None  # nearest neighbours exist (read), none is a result
    assert nonsense.decision.probability is None
    assert f"no decision policy for embedding model {second_model.model!r}" in caplog.text
    assert _refs("submit receipts", handbook) == ["expenses"]  # its words carry it
    answer = answer_question(user=handbook, question="When must I submit receipts in Tally?", rate_limit=False)
    assert answer.mode == "extractive" and "within 30 days" in answer.text  # Ask still answers
    # The first search asked for the model's calibration: the admin says it is queued, not yet run.
    assert index_overview()["decisions"].startswith("PENDING: queued, not yet run.")


def test_calibrate_fits_the_model_s_policy_and_search_uses_it(second_model, handbook, tmp_path):  # type: ignore[no-untyped-def]
    out = StringIO()
    call_command("calibrate", "--extra", str(_material(tmp_path)), "--only", "--json", stdout=out)
    body = json.loads(out.getvalue())
    assert body["model"] == second_model.model
    assert set(body["decisions"]) == {"query", "page", "answer", "same_question", "retrieval"}
    # The model's own retrieval numbers, from its own material: one language and too few passages for
    # a language mean, so every pair of the grid ties and the neutral ones stay (no shipped ones).
    own = body["decisions"]["retrieval"]
    assert own["report"]["questions"]["counted"] == len(QUESTIONS)
    neutral = {"centring": NEUTRAL.centring, "vector_weight": NEUTRAL.vector_weight}
    assert own["thresholds"] == own["report"]["chosen"] == neutral
    assert body["report"]["calibration_set"] | {"digest": ""} == {
        "digest": "",
        "passages": len(PASSAGES),
        "questions": len(QUESTIONS),
        "unanswerable": len(UNANSWERABLE),
        "no_match": len(NO_MATCH),
        "shipped": False,
        "extra": [str(tmp_path / "ours.jsonl")],
    }
    stored = DecisionPolicy.objects.get(model=second_model.model)
    policy = policy_for(second_model.model)
    assert policy is not None and policy.source == "calibrated" and policy.get("query") is not None
    assert stored.decisions["query"]["thresholds"]["clearly_off"] <= stored.decisions["query"]["thresholds"]["result"]
    same = stored.decisions["same_question"]["thresholds"]
    assert same["related"] <= same["similarity"]  # the second look reaches only farther wordings
    assert index_overview()["decisions"].startswith("Calibrated at ")
    assert retrieve("qsdfghjklm", handbook).pages == []
    # Meaning counts now: a paraphrase sharing no word with its page finds it, by the fitted decision.
    paraphrase = retrieve("Can I do my job at my house?", handbook)
    assert paraphrase.decision is not None and paraphrase.decision.confident
    assert paraphrase.decision.probability is not None
    assert _refs("Can I do my job at my house?", handbook)[:1] == ["remote"]


def test_calibrate_says_what_is_wrong_with_bad_material(second_model, tmp_path):  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "Where?", "language": "en", "passage": "nowhere", "answer": "x"}\n', encoding="utf-8")
    with pytest.raises(CommandError, match="no passage 'nowhere'"):
        call_command("calibrate", "--extra", str(bad))
    with pytest.raises(CommandError, match="no such file"):
        call_command("calibrate", "--extra", str(tmp_path / "missing.jsonl"))
    with pytest.raises(CommandError, match="--only fits on the --extra files"):
        call_command("calibrate", "--only")
    assert not DecisionPolicy.objects.exists()
