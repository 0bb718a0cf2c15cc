"""Linked translations in search, the API hit list and Ask: two readable twins are one document,
shown in the reader's language; a twin the reader cannot read changes nothing they see."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.utils import translation

from handbook.translations.services import translation_link, translation_unlink
from search.ask.passages import passages_for
from search.hit_list import search_json
from search.retrieval.hits import ChunkHit, PageHit
from search.retrieval.twins import collapse_twins
from search.selectors import search_pages

pytestmark = pytest.mark.django_db

ENGLISH = "# Remote work\n\nStaff may use the zorblax allowance three days a week from home.\n"
FRENCH = "# Télétravail\n\nLe personnel peut utiliser le forfait zorblax trois jours par semaine.\n"
OTHER = "# Equipment\n\nA zorblax screen is lent on request.\n"


@pytest.fixture
def world(no_embeddings, make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    english = make_page(hr, "Remote work", ENGLISH, language="en")
    french = make_page(hr, "Télétravail", FRENCH, language="fr")
    other = make_page(hr, "Equipment", OTHER, language="en")
    editor = make_user("editor", "staff", "hr-editors", "payroll")
    translation_link(page=english, twin=french, user=editor)
    return SimpleNamespace(
        hr=hr, english=english, french=french, other=other, editor=editor, reader=make_user("reader", "staff")
    )


def _hit(page_id: int, score: float) -> PageHit:
    return PageHit(page_id, score, [ChunkHit(chunk_id=page_id * 10, page_id=page_id, score=score)])


def test_collapse_keeps_the_reader_language_at_the_better_place():
    hits = [_hit(1, 0.9), _hit(3, 0.8), _hit(2, 0.5)]
    pairs, languages = {1: 2, 2: 1}, {1: "en", 2: "fr", 3: "en"}
    french = collapse_twins(hits, pairs, languages, "fr")
    assert [(h.page_id, h.score) for h in french] == [(2, 0.9), (3, 0.8)]
    assert [h.page_id for h in collapse_twins(hits, pairs, languages, "en-us")] == [1, 3]
    assert [h.page_id for h in collapse_twins(hits, pairs, languages, "de")] == [1, 3]  # neither: the better one
    assert collapse_twins(hits, {}, languages, "fr") is hits  # nothing linked: the very same list


def test_search_lists_twins_once_in_the_ui_language(world):
    pages = {p.pk: p.title for p in (world.english, world.french, world.other)}
    en = search_pages(user=world.reader, query="zorblax", ui_language="en", with_summaries=False)
    fr = search_pages(user=world.reader, query="zorblax", ui_language="fr", with_summaries=False)
    assert en.total == fr.total == 2
    assert "Télétravail" not in [r.title for r in en.results] and "Remote work" in [r.title for r in en.results]
    assert "Remote work" not in [r.title for r in fr.results] and "Télétravail" in [r.title for r in fr.results]
    # Each in the place of the better-ranked twin: the same rank in both languages.
    assert [r.title for r in en.results].index("Remote work") == [r.title for r in fr.results].index("Télétravail")
    assert {code: n for code, _name, n in en.facets["language"]} == {"en": 2, "fr": 1}
    # Asking for French pages shows the French twin even to an English reader.
    only_fr = search_pages(user=world.reader, query="zorblax", language="fr", ui_language="en", with_summaries=False)
    assert [r.title for r in only_fr.results] == ["Télétravail"]
    assert set(pages.values()) >= {r.title for r in en.results}


def test_the_web_search_follows_the_request_language(world):
    client = Client()
    client.force_login(world.reader)
    html = client.get("/search/?q=zorblax", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert world.french.get_absolute_url() in html and world.english.get_absolute_url() not in html


def test_api_hit_list_collapses_twins(world):
    with translation.override("fr"):
        body, total = search_json("zorblax", world.reader)
    assert total == 2 and "Remote work" not in [r["title"] for r in body["results"]]


def _results(user) -> list[tuple]:  # type: ignore[no-untyped-def]
    result = search_pages(user=user, query="zorblax", ui_language="fr", with_summaries=False)
    return [(r.page_id, r.score, str(r.snippet)) for r in result.results] + [result.total, result.facets]


def _search_html(user) -> str:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    html = client.get("/search/?q=zorblax", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    # Per-request values: the CSRF token and the search log's key.
    return re.sub(r'(csrfmiddlewaretoken" value=|x-csrftoken": )"[^"]*"|[0-9a-f]{8}-[0-9a-f-]{27}', "", html)


def test_a_twin_the_reader_cannot_read_changes_nothing(world):
    """GIVEN the French twin restricted to payroll WHEN a reader outside payroll searches
    THEN results, order, scores, snippets, counts, facets and the HTML are the same linked or not."""
    world.french.restricted_to_groups.set([Group.objects.get(name="payroll")])
    linked = (_results(world.reader), _search_html(world.reader), passages_for("zorblax jours ?", world.reader)[1])
    assert world.english.pk in [row[0] for row in linked[0][:-2]]
    translation_unlink(page=world.english, user=world.editor)
    unlinked = (_results(world.reader), _search_html(world.reader), passages_for("zorblax jours ?", world.reader)[1])
    assert linked[0] == unlinked[0]
    assert linked[1] == unlinked[1]
    assert [p.chunk_id for p in linked[2]] == [p.chunk_id for p in unlinked[2]]
    # The payroll editor reads both: for them the link does take effect.
    translation_link(page=world.english, twin=world.french, user=world.editor)
    assert _results(world.editor)[-2] == 2


def test_ask_quotes_one_twin_in_the_question_language(world):
    for question, kept, gone in [
        ("Combien de jours de forfait zorblax par semaine ?", world.french, world.english),
        ("How many days of zorblax allowance per week?", world.english, world.french),
    ]:
        retrieval, passages = passages_for(question, world.reader)
        pages = {p.page_id for p in passages}
        assert kept.pk in pages and gone.pk not in pages, retrieval.query_language
        assert [p.number for p in passages] == list(range(1, len(passages) + 1))
