"""Hidden pages never move what a reader sees: index statistics are counted per readership scope.

GIVEN a reader (bob) and pages he cannot read (a space of HR's, and a page of his own space
restricted to HR), WHEN those hidden pages gain or lose rare and common words, or appear and
disappear, and every statistic is refreshed (IDF, language means, word-translation vocabulary),
THEN every search path bob has — retrieval lists with their scores, the web page and its htmx
fragment, the CLI's JSON, Ask's passages and how its quote choice weighs their units' words, the
word translation, the term weights — gives exactly what it gave before. The same edits on a page
bob *can* read do change his results (the observation is sensitive enough to see a leak).
"""

from __future__ import annotations

import io
import json
import re

import pytest
from django.core.cache import cache
from django.core.management import call_command

from core.text import detect_language
from search.ask.answers import answer_question
from search.ask.extractive import candidates
from search.ask.passages import passages_for
from search.lexicon import word_translation as lexicon
from search.retrieval import crosslang
from search.retrieval.pipeline import retrieve
from search.retrieval.query_translation import query_translations
from search.retrieval.suggest import did_you_mean
from search.services import lexicon_build
from search.statistics.scopes import reader_of
from search.statistics.term_statistics import refresh_lexeme_stats, term_weights
from tests.tiny_lexicon import tiny_lexicon

pytestmark = [pytest.mark.django_db, pytest.mark.timeout(900)]

QUERIES = [
    "broyeur boisson -zzzq",  # the reported case: two pages whose order followed a hidden word
    "coffee machine descaling",
    "remboursement des frais de voyage",  # French question, English page: the word translation
    "vacation days per year",
]
PUBLIC = {
    "kitchen": ("Kitchen", "# Kitchen\n\nThe coffee machine needs descaling every month. The broyeur grinds beans.\n"),
    "drinks": ("Boissons", "# Boissons\n\nLa boisson chaude est offerte. Le broyeur à café est dans la cuisine.\n"),
    "travel": (
        "Travel reimbursement",
        "# Travel reimbursement\n\nSubmit travel receipts (train, hotel, taxi) within thirty days.\n",
    ),
    "frais": ("Frais de voyage", "# Frais\n\nLe remboursement des frais de voyage se fait sous trente jours.\n"),
    "leave": ("Annual leave", "# Annual leave\n\nYou get 25 vacation days per year; days carry over to March.\n"),
    "conges": ("Congés", "# Congés annuels\n\nVous avez droit à 25 jours de congés par an.\n"),
}
# Misspelt queries: "did you mean" may only ever offer words of pages bob can read.
TYPOS = ["boison chaude", "layofs confidentel", "descalng machne"]
HIDDEN_WORDS = (
    "# Plan\n\nboisson boisson broyeur coffee machine descaling remboursement voyage travel taxi "
    "vacation days year congés annuels zzzq confidentiel layoffs\n"
)


@pytest.fixture(autouse=True)
def _small_handbook_statistics(monkeypatch, settings):  # type: ignore[no-untyped-def]
    # A tiny handbook: every word is vocabulary and every language has a mean.
    monkeypatch.setattr(crosslang, "MIN_CHUNKS_PER_LANGUAGE", 1)
    yield from tiny_lexicon(monkeypatch)


@pytest.fixture
def world(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    people = make_space("people", viewers=("staff",))
    hr = make_space("hr", viewers=("hr",))
    for ref, (title, body) in PUBLIC.items():
        make_page(people, title, body, language="fr" if ref in ("drinks", "frais", "conges") else "en", ref=ref)
    make_page(hr, "Salaries", "# Salaries\n\nSalary bands are reviewed in March.\n", ref="salaries")
    make_page(people, "Reorg", "# Reorg\n\nThe reorganisation timeline.\n", restricted_to=("hr",), ref="reorg")
    bob = make_user("bob", "staff")
    make_user("alice", "staff", "hr")
    _refresh()
    return {"people": people, "hr": hr, "bob": bob}


def _refresh() -> None:
    """Every statistic recomputed from the index as it is now, as the sweep would."""
    refresh_lexeme_stats()
    cache.clear()  # language means, translations, query results: computed afresh
    lexicon.forget()
    lexicon_build()


def _strip_volatile(html: str) -> str:
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)
    html = re.sub(r'nonce="[^"]*"', "", html)
    html = re.sub(r'"x-csrftoken": "[^"]*"', "", html)
    html = re.sub(r'data-search-log="[^"]*"', "", html)  # a random key per logged search
    return re.sub(r"\d+(\.\d+)? ms", "", html)


def _observe(client, bob) -> dict:  # type: ignore[no-untyped-def]
    """Everything bob sees or could time, for every query and every search path."""
    seen: dict = {"reader": reader_of(bob).key}
    client.force_login(bob)
    for q in QUERIES:
        cache.clear()  # each path computes afresh: no cached list from an earlier state answers
        result = retrieve(q, bob)
        seen[f"retrieve:{q}"] = [
            (
                page.page_id,
                round(page.score, 12),
                [(c.chunk_id, c.keyword_rank, c.vector_rank, c.crosslang_rank, c.translated_rank) for c in page.chunks],
            )
            for page in result.pages
        ]
        seen[f"weights:{q}"] = {
            lang: sorted((t.term, round(t.idf, 12), t.ndoc) for t in terms)
            for lang, terms in term_weights(q.split(), reader_of(bob)).items()
        }
        for source in ("en", "fr"):
            seen[f"translate:{source}:{q}"] = query_translations(q, source, reader=reader_of(bob), owner=bob.pk)
        _retrieval, passages = passages_for(q, bob, result)
        seen[f"passages:{q}"] = [(p.chunk_id, p.text, round(p.score, 12)) for p in passages]
        # A unit in the other language matches the question's words through its word translation.
        units = candidates(q, detect_language(q), passages)
        seen[f"ask-words:{q}"] = [(c.unit.text, round(c.words, 12)) for c in units]
        cache.clear()
        answer = answer_question(user=bob, question=q, log=False, rate_limit=False)
        probability = None if answer.probability is None else round(answer.probability, 12)
        seen[f"ask:{q}"] = (answer.as_json(), answer.confidence, probability)
        cache.clear()
        seen[f"page:{q}"] = _strip_volatile(client.get("/search/", {"q": q}).content.decode())
        cache.clear()
        seen[f"fragment:{q}"] = _strip_volatile(
            client.get("/search/", {"q": q}, HTTP_HX_REQUEST="true").content.decode()
        )
        out = io.StringIO()
        call_command("search", q, "--user", "bob", "--json", stdout=out)
        seen[f"cli:{q}"] = json.loads(out.getvalue())
    lexicon_build()  # the vocabulary's build stamp lives in the cache, cleared above: as the sweep would
    for q in TYPOS:
        seen[f"suggestion:{q}"] = did_you_mean(q, reader_of(bob))
        seen[f"suggestion-page:{q}"] = _strip_volatile(client.get("/search/", {"q": q}).content.decode())
    return seen


def _diff(before: dict, after: dict) -> list[str]:
    return [key for key in before if before[key] != after.get(key)]


def test_hidden_edits_change_nothing_a_reader_sees(client, world, make_page, django_capture_on_commit_callbacks):
    from handbook.services import page_delete, page_save

    bob = world["bob"]
    before = _observe(client, bob)
    assert any(before[f"retrieve:{q}"] for q in QUERIES)  # the observation is not empty
    assert before["suggestion:boison chaude"] == "boisson chaude"  # a readable word is offered…
    assert before["suggestion:layofs confidentel"] is None  # …a word only hidden pages hold is not

    # A hidden space and a restricted page of bob's own space gain rare and common words…
    secret = make_page(world["hr"], "Plan", HIDDEN_WORDS, ref="plan")
    secret_fr = make_page(world["hr"], "Plan FR", HIDDEN_WORDS, language="fr", ref="plan-fr")
    make_page(world["people"], "Plan R", HIDDEN_WORDS, restricted_to=("hr",), ref="plan-r")
    _refresh()
    assert not _diff(before, _observe(client, bob))

    # …lose them again, and whole hidden pages come and go.
    from handbook.models import Page

    reorg = Page.objects.get(ref="reorg")
    with django_capture_on_commit_callbacks(execute=True):
        page_save(page=secret, title=secret.title, body="# Plan\n\nNothing left.\n", author=None, publish=True)
        page_save(
            page=reorg, title=reorg.title, body=reorg.body + "\nboisson broyeur travel\n", author=None, publish=True
        )
        page_delete(page=secret_fr)
    _refresh()
    assert not _diff(before, _observe(client, bob))


def test_the_same_edit_on_a_readable_page_is_seen(client, world, make_page):
    """The control: the observation does see a change in content bob may read."""
    bob = world["bob"]
    before = _observe(client, bob)
    make_page(world["people"], "Plan", HIDDEN_WORDS, ref="plan-public")
    _refresh()
    changed = _diff(before, _observe(client, bob))
    assert any(key.startswith("weights:") for key in changed)
    assert any(key.startswith("retrieve:") for key in changed)
    assert "suggestion:layofs confidentel" in changed  # "layoffs" is now a word bob can read
