"""Ask's passages: the best page in the handbook's other language always gets one."""

from __future__ import annotations

import pytest

from search.ask import passages as passages_module
from search.ask.passages import passages_for

ENGLISH = [
    ("Annual leave", "# Annual leave\n\nEvery employee gets 25 days of annual leave per year.\n"),
    ("Leave requests", "# Leave requests\n\nAnnual leave is requested in the HR portal two weeks ahead.\n"),
    ("Leave carry-over", "# Leave carry-over\n\nUp to five days of annual leave carry over to March.\n"),
]
FRENCH = ("Congés au bureau de Lyon", "# Congés\n\nÀ Lyon, les congés annuels se posent dans Lumen.\n")


@pytest.mark.django_db
def test_the_other_languages_best_page_gets_a_passage(make_space, make_page, make_user, monkeypatch):  # type: ignore[no-untyped-def]
    """GIVEN English pages that outrank a French one WHEN passages are few THEN the French page still
    has one, in place of a second passage of a page already there; without the rule it has none."""
    space = make_space("people", viewers=("staff",))
    for title, body in ENGLISH:
        make_page(space, title, body, language="en")
    make_page(space, FRENCH[0], FRENCH[1], language="fr")
    bob = make_user("bob", "staff")
    question = "How many days of annual leave do I get?"
    monkeypatch.setattr(passages_module, "MAX_PASSAGES", 2)
    monkeypatch.setattr(passages_module, "OTHER_LANGUAGE_PAGES", 0)
    _retrieval, without = passages_for(question, bob)
    assert [p.language for p in without] == ["en", "en"]
    monkeypatch.setattr(passages_module, "OTHER_LANGUAGE_PAGES", 1)
    _retrieval, passages = passages_for(question, bob)
    assert len(passages) == 2
    assert [p.language for p in passages].count("fr") == 1
    assert [p.number for p in passages] == [1, 2]
