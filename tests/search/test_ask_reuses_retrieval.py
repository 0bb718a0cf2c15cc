"""What Ask takes from retrieval rather than making again: the question's translation that the translated
list searched (Ask matches units in another language through it), and the question as parsed."""

from __future__ import annotations

import pytest

from search.ask.passages import passages_for
from search.retrieval import pipeline

pytestmark = pytest.mark.django_db

ENGLISH = "# Remote work\n\nStaff may use the zorblax allowance three days a week from home.\n"
FRENCH = "# Télétravail\n\nLe forfait zorblax se demande auprès des RH.\n"


@pytest.fixture
def reader(no_embeddings, make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    hr = make_space("hr", viewers=("staff",))
    make_page(hr, "Remote work", ENGLISH, language="en")
    make_page(hr, "Télétravail", FRENCH, language="fr")
    return make_user("reader", "staff")


@pytest.fixture
def translations(monkeypatch):  # type: ignore[no-untyped-def]
    """Every translation made, as (text, source); each one the English words of the question."""
    made: list[tuple[str, str]] = []

    def translate(text, source, embedder=None, *, reader, owner):  # type: ignore[no-untyped-def]
        made.append((text, source))
        return {"en": "zorblax allowance days", "de": "zorblax tage"}

    monkeypatch.setattr(pipeline, "query_translations", translate)
    return made


def test_the_quotes_read_the_translation_retrieval_searched(reader, translations):  # type: ignore[no-untyped-def]
    retrieval, passages = passages_for("combien de jours zorblax ?", reader)
    assert translations == [("combien de jours zorblax ?", "fr")]  # once, by the translated list
    assert retrieval.translations == {"en": "zorblax allowance days", "de": "zorblax tage"}
    assert {p.language for p in passages} == {"en", "fr"}
    # Each passage carries the translations into the passages' languages only.
    assert all(p.question_translations == {"en": "zorblax allowance days"} for p in passages)


def test_a_phrase_is_not_translated_for_the_quotes_either(reader, translations):  # type: ignore[no-untyped-def]
    retrieval, passages = passages_for('"forfait zorblax" jours', reader)
    assert translations == [] and retrieval.translations is None
    assert passages and all(p.question_translations == {} for p in passages)


def test_the_question_is_parsed_once_for_retrieval_and_the_snippet(reader, monkeypatch):  # type: ignore[no-untyped-def]
    # The units the search snippet would show are found from the question Ask parsed, not a second parse.
    from search.ask import answers, snippet_units

    parsed: list[str] = []

    def counting(parse):  # type: ignore[no-untyped-def]
        def parse_counted(text, *args, **kwargs):  # type: ignore[no-untyped-def]
            parsed.append(text)
            return parse(text, *args, **kwargs)

        return parse_counted

    monkeypatch.setattr(answers, "parse_query", counting(answers.parse_query))
    monkeypatch.setattr(snippet_units, "parse_query", counting(snippet_units.parse_query))
    shown: list[list[str]] = []
    in_snippet = snippet_units.in_snippet

    def recorded(question, text, units):  # type: ignore[no-untyped-def]
        found = in_snippet(question, text, units)
        shown.append([u.text for u in found])
        return found

    monkeypatch.setattr("search.ask.extractive.in_snippet", recorded)
    question = "How many zorblax days from home?"
    answer = answers.answer_question(user=reader, question=question, log=False, use_cache=False)
    assert parsed == [question]
    assert shown and any("zorblax allowance" in t for t in shown[0])
    assert answer.citations
