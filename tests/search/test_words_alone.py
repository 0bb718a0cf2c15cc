"""When the words must carry a match, retrieval narrows the keyword lists it already has instead of
asking them again (``search/retrieval/pipeline.py``, ``_words_alone``): the narrowed list must be
the list the keyword leg returns when asked with that requirement."""

from __future__ import annotations

import pytest

from search.retrieval import keyword
from search.retrieval.hits import Filters
from search.retrieval.keyword import KEYWORD_ALONE_COVERAGE, keyword_leg, translated_keyword_leg
from search.retrieval.pipeline import _by_language, _narrowed
from search.retrieval.query import parse_query
from tests.readers import visible_page_ids

pytestmark = pytest.mark.django_db

QUERIES = [
    "remote work",
    "work from home two days per week",
    "parking badges gate",
    "congés payés report",
    "badges visitors street taxi",
    "télétravail semaine responsable",
    '"remote work" home',
]
DEPTH = 100


def _rows(hits):  # type: ignore[no-untyped-def]
    return [(h.chunk_id, h.page_id, h.keyword_rank, h.coverage) for h in hits]


@pytest.mark.parametrize("least", [KEYWORD_ALONE_COVERAGE, 1.0])
@pytest.mark.parametrize("user", ["bob", "alice"])
def test_a_keyword_list_narrowed_is_the_list_asked_with_the_requirement(kw, user, least):  # type: ignore[no-untyped-def]
    visible = visible_page_ids(kw[user])
    dropped = 0
    for text in QUERIES:
        parsed = parse_query(text)
        wide = keyword_leg(parsed, visible, Filters(), DEPTH)
        asked = keyword_leg(parsed, visible, Filters(), DEPTH, min_coverage=least)
        narrowed = _narrowed(wide, least, DEPTH)
        assert narrowed is not None and _rows(narrowed) == _rows(asked), text
        dropped += len(wide) - len(asked)
    assert dropped  # the requirement left chunks out: the comparison is not of equal lists


@pytest.mark.parametrize("least", [KEYWORD_ALONE_COVERAGE, 1.0])
def test_a_translated_list_narrowed_per_language_is_the_list_asked_with_the_requirement(kw, monkeypatch, least):  # type: ignore[no-untyped-def]
    translations = {"fr": "télétravail deux jours semaine", "en": "remote work parking badges"}
    monkeypatch.setattr(keyword, "query_translations", lambda *a, **k: translations)
    visible = visible_page_ids(kw["alice"])
    dropped = 0
    for text in ["travail maison jours semaine voiture", "remote work two days", "parking"]:
        parsed = parse_query(text)
        wide = translated_keyword_leg(parsed, "en", visible, Filters(), DEPTH)
        asked = translated_keyword_leg(parsed, "en", visible, Filters(), DEPTH, min_coverage=least)
        parts = [_narrowed(part, least, DEPTH) for part in _by_language(wide)]
        assert all(part is not None for part in parts)
        assert _rows([hit for part in parts for hit in part or []]) == _rows(asked), text
        dropped += len(wide) - len(asked)
    assert dropped


def test_a_list_cut_at_its_depth_is_not_narrowed(kw):  # type: ignore[no-untyped-def]
    """The stricter list may reach chunks below the cut: that list is asked again instead."""
    visible = visible_page_ids(kw["alice"])
    wide = keyword_leg(parse_query("badges parking remote work"), visible, Filters(), 2)
    assert len(wide) == 2
    assert _narrowed(wide, KEYWORD_ALONE_COVERAGE, 2) is None
