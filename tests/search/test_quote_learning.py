"""Ask's quote ranker learns from verified answers: the weights follow the editors' picks, only
picks on pages everyone reads teach it, it serves only once enough answers do and it helps held
out, and then it orders the quotes."""

from __future__ import annotations

import pytest

from core import fitted
from search.ask import quote_learning
from search.ask.answers import answer_question
from search.embedding.embedders import LOCAL_MODEL_NAME
from search.models import QuoteRankerFit
from search.verified.selectors import picker_sections
from search.verified.services import verify_answer

PAGES = {
    "Parking": "The car park opens at seven in the morning.\n\nVisitors park on level two near the lift.",
    "Bikes": "The bike room opens at seven in the morning.\n\nCargo bikes go in the yard behind the kitchen.",
    "Lockers": "Lockers are on every floor near the stairs.\n\nSpare keys are kept at the front desk downstairs.",
}
QUESTIONS = {
    "Parking": "Where do visitors park?",
    "Bikes": "Where do cargo bikes go?",
    "Lockers": "Where are spare locker keys kept?",
}


@pytest.fixture
def site(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    office = make_space("office", viewers=("staff",), editors=("editors",))
    secret = make_space("secret", viewers=("board",), editors=("editors",))
    pages = {title: make_page(office, title, f"# {title}\n\n## Where\n\n{body}\n") for title, body in PAGES.items()}
    hidden = make_page(
        secret, "Vault", "# Vault\n\n## Codes\n\nThe vault code changes weekly.\n\nOnly two people know it.\n"
    )
    return {
        "pages": pages,
        "hidden": hidden,
        "editor": make_user("erin", "staff", "editors", "board"),
        "reader": make_user("rob", "staff"),
    }


@pytest.fixture
def pick(site, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    """Verify an answer as an editor would; the refit task runs as the commit would queue it."""

    def verify(title: str, question: str, index: int):  # type: ignore[no-untyped-def]
        page = site["pages"].get(title) or site["hidden"]
        units = [h for section in picker_sections(page) for h, _u in section.units]
        with django_capture_on_commit_callbacks(execute=True):
            return verify_answer(editor=site["editor"], question=question, page=page, unit_hashes=[units[index]])

    return verify


@pytest.mark.django_db
def test_the_fit_follows_the_picks_and_reports(site, pick):
    for title, question in QUESTIONS.items():
        pick(title, question, 1)
    fit = QuoteRankerFit.objects.get()
    assert fit.report["answers"] == 3 and fit.report["features"] == list(quote_learning.FEATURES)
    assert fit.weights["pages"] == sorted(page.pk for page in site["pages"].values())  # who taught it
    assert not fit.in_use  # fewer than MIN_ANSWERS: the shipped order serves
    second = dict(fit.report["weights"])
    for title, question in QUESTIONS.items():
        pick(title, question, 0)  # verifying again replaces: now the openings are picked
    first = QuoteRankerFit.objects.get().report["weights"]
    assert first["opening"] > second["opening"]


@pytest.mark.django_db
def test_picks_on_a_page_not_everyone_reads_teach_nothing(site, pick):
    for title, question in QUESTIONS.items():
        pick(title, question, 1)
    before = QuoteRankerFit.objects.get()
    pick("Vault", "Who knows the vault code?", 1)
    after = QuoteRankerFit.objects.get()
    assert after.report["answers"] == before.report["answers"] == 3
    assert after.weights == before.weights


@pytest.mark.django_db
def test_an_in_use_ranker_orders_the_quotes(site, monkeypatch):
    question = "When does the car park open and where do visitors park?"
    shipped = answer_question(user=site["reader"], question=question, rate_limit=False, use_cache=False)
    first = shipped.citations[0].quote
    model = LOCAL_MODEL_NAME
    monkeypatch.setattr(quote_learning, "MIN_ANSWERS", 0)
    # Weights that prefer what is not a section's opening: the other sentence comes first.
    coef = [0.0, 0.0, 0.0, 0.0, 0.0, -5.0, -5.0]
    taught = [site["pages"]["Parking"].pk]
    weights = {"coef": coef, "pages": taught}
    QuoteRankerFit.objects.update_or_create(model=model, defaults={"weights": weights, "in_use": True})
    learnt = answer_question(user=site["reader"], question=question, rate_limit=False, use_cache=False)
    assert learnt.citations[0].quote != first
    assert learnt.mode == shipped.mode  # whether it answers is the shipped decision


@pytest.mark.django_db
def test_a_ranker_taught_by_a_page_the_reader_cannot_read_does_not_order_their_quotes(site, monkeypatch):
    """A page restricted after the fit (here: a fit whose teaching pages include one the reader cannot
    read) changes nothing the reader sees: the shipped order until the next fit leaves it out. A reader
    of every teaching page gets the learnt order."""
    question = "When does the car park open and where do visitors park?"
    reader, editor = site["reader"], site["editor"]
    shipped = {
        who.pk: answer_question(user=who, question=question, rate_limit=False, use_cache=False, log=False)
        for who in (reader, editor)
    }
    monkeypatch.setattr(quote_learning, "MIN_ANSWERS", 0)
    coef = [0.0, 0.0, 0.0, 0.0, 0.0, -5.0, -5.0]
    weights = {"coef": coef, "pages": [site["pages"]["Parking"].pk, site["hidden"].pk]}
    QuoteRankerFit.objects.update_or_create(model=LOCAL_MODEL_NAME, defaults={"weights": weights, "in_use": True})
    for who, reads_every_teacher in ((reader, False), (editor, True)):
        answer = answer_question(user=who, question=question, rate_limit=False, use_cache=False, log=False)
        before = [c.quote for c in shipped[who.pk].citations]
        assert ([c.quote for c in answer.citations] == before) is not reads_every_teacher, who.username
    # A fit stored without its teaching pages serves nobody.
    QuoteRankerFit.objects.filter(model=LOCAL_MODEL_NAME).update(weights={"coef": coef})
    fitted.forget()  # a queryset update sends no change signal
    answer = answer_question(user=editor, question=question, rate_limit=False, use_cache=False, log=False)
    assert [c.quote for c in answer.citations] == [c.quote for c in shipped[editor.pk].citations]
