"""When the words must carry a match, retrieval already holds the stricter keyword lists: the first
keyword statement ranks the matches for every share of the words the decision may ask for
(``search/retrieval/keyword.py``, ``keyword_lists``), and ``_words_alone`` only picks one. Each
list must be the list the keyword leg returns when asked alone with that requirement (the
reference: ``keyword_leg(..., min_coverage=least)``), cut at its depth or not, and no keyword
statement runs once the decision is made."""

from __future__ import annotations

import pytest
from django.db import connection

from search.decisions.query import QUERY
from search.retrieval import keyword, pipeline
from search.retrieval.hits import Filters
from search.retrieval.keyword import (
    KEYWORD_MIN_COVERAGE,
    keyword_leg,
    keyword_lists,
    translated_keyword_leg,
    translated_keyword_lists,
)
from search.retrieval.pipeline import WORDS_ALONE, retrieve
from search.retrieval.query import parse_query
from tests.decisions import query_decision, store
from tests.readers import visible_page_ids
from tests.search.retrieval_world import add_page

pytestmark = pytest.mark.django_db

# Chunks that hold most (CUT_MOST) or all (CUT_ALL) of the query's words, ranked below two chunks holding
# fewer of them in their titles: a list cut at depth 2 leaves them out, the stricter lists reach them.
CUT_MOST = "amber basalt cobalt dune fjord glacier"
CUT_ALL = "kelp lagoon marsh nectar orchid"
CUT_PAGES = [
    ("cut-most-1", "Amber basalt cobalt dune", "Amber, basalt, cobalt and dune."),
    ("cut-most-2", "Amber basalt cobalt dune guide", "Amber, basalt, cobalt and dune again."),
    ("cut-most-held", "Field notes", "Amber and basalt near the fjord and the glacier."),
    ("cut-all-1", "Kelp lagoon marsh nectar", "Kelp, lagoon, marsh and nectar."),
    ("cut-all-2", "Kelp lagoon marsh nectar guide", "Kelp, lagoon, marsh and nectar again."),
    ("cut-all-held", "Shore notes", "Kelp in the lagoon, a marsh, nectar of an orchid."),
]
QUERIES = [
    "remote work",
    "work from home two days per week",
    "parking badges gate",
    "congés payés report",
    "badges visitors street taxi",
    "télétravail semaine responsable",
    '"remote work" home',
    "badges parking remote work",
    CUT_MOST,
    CUT_ALL,
]
COVERAGES = (KEYWORD_MIN_COVERAGE, *WORDS_ALONE)
TRANSLATIONS = {"fr": "télétravail deux jours semaine", "en": "remote work parking badges"}
CUT_TRANSLATED = {"ambre basalte cobalt dune fjord glacier": CUT_MOST, "varech lagune marais nectar orchidée": CUT_ALL}


def _translations(raw, *args, **kwargs):  # type: ignore[no-untyped-def]
    """The word translations, set: the two cut queries have the same number of words in either language."""
    return {"en": CUT_TRANSLATED[raw]} if raw in CUT_TRANSLATED else TRANSLATIONS


def _with_cut_pages(world, make_page):  # type: ignore[no-untyped-def]
    for ref, title, body in CUT_PAGES:
        add_page(world, make_page, ref, title, f"# {title}\n\n{body}")
    return world


@pytest.fixture
def kw_cut(kw, make_page):  # type: ignore[no-untyped-def]
    return _with_cut_pages(kw, make_page)


@pytest.fixture
def hybrid_cut(hybrid, make_page):  # type: ignore[no-untyped-def]
    return _with_cut_pages(hybrid, make_page)


def _rows(hits):  # type: ignore[no-untyped-def]
    return [(h.chunk_id, h.page_id, h.keyword_rank, h.coverage) for h in hits]


def _left_out(wide, strict) -> bool:  # type: ignore[no-untyped-def]
    """The strict list reaches a chunk the wide list (cut at its depth) left out: narrowing the wide
    list in Python could not have found it."""
    return bool({h.chunk_id for h in strict} - {h.chunk_id for h in wide})


@pytest.mark.parametrize("depth", [100, 2, 1])
@pytest.mark.parametrize("user", ["bob", "alice"])
def test_every_keyword_list_of_the_one_statement_is_the_list_asked_alone(kw_cut, user, depth):  # type: ignore[no-untyped-def]
    visible = visible_page_ids(kw_cut[user])
    dropped, reached = 0, 0
    for text in QUERIES:
        parsed = parse_query(text)
        lists = keyword_lists(parsed, visible, Filters(), depth, coverages=COVERAGES)
        for least in COVERAGES:
            asked = keyword_leg(parsed, visible, Filters(), depth, min_coverage=least)
            assert _rows(lists[least]) == _rows(asked), (text, least)
        wide = lists[KEYWORD_MIN_COVERAGE]
        assert _rows(wide) == _rows(keyword_leg(parsed, visible, Filters(), depth))  # the list of every search
        dropped += sum(len(wide) - len(lists[least]) for least in WORDS_ALONE)
        reached += sum(_left_out(wide, lists[least]) for least in WORDS_ALONE)
    assert dropped  # the requirement left chunks out: the comparison is not of equal lists
    if depth < 100:
        assert reached  # a list cut at its depth: the strict list reaches below the cut


@pytest.mark.parametrize("depth", [100, 2])
def test_every_translated_list_of_the_one_statement_is_the_list_asked_alone(kw_cut, monkeypatch, depth):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(keyword, "query_translations", _translations)
    visible = visible_page_ids(kw_cut["alice"])
    dropped, reached = 0, 0
    for text in ["travail maison jours semaine voiture", "remote work two days", "parking", *CUT_TRANSLATED]:
        parsed = parse_query(text)
        lists = translated_keyword_lists(parsed, _translations(parsed.raw), visible, Filters(), depth, COVERAGES)
        for least in COVERAGES:
            asked = translated_keyword_leg(parsed, "en", visible, Filters(), depth, min_coverage=least)
            assert _rows(lists[least]) == _rows(asked), (text, least)
        wide = lists[KEYWORD_MIN_COVERAGE]
        dropped += sum(len(wide) - len(lists[least]) for least in WORDS_ALONE)
        reached += sum(_left_out(wide, lists[least]) for least in WORDS_ALONE)
    assert dropped
    if depth < 100:
        assert reached


def test_the_stricter_lists_hold_only_pages_the_reader_may_read(kw):  # type: ignore[no-untyped-def]
    """The visible set is applied inside the statement, before any list is ranked or cut."""
    restricted = set(visible_page_ids(kw["alice"])) - set(visible_page_ids(kw["bob"]))
    assert restricted
    for text in QUERIES:
        lists = keyword_lists(parse_query(text), visible_page_ids(kw["bob"]), Filters(), 2, coverages=COVERAGES)
        assert not {h.page_id for hits in lists.values() for h in hits} & restricted, text


@pytest.mark.parametrize("clearly_off", [0.1, 0.6])  # p = 0.5: not confident; then also clearly off
def test_no_keyword_statement_runs_once_the_decision_is_made(hybrid_cut, monkeypatch, clearly_off):  # type: ignore[no-untyped-def]
    """GIVEN a decision that is not confident, THEN the words carry the match, from the lists the
    first statements returned: each is the keyword leg asked with the requirement, even where the
    list was cut at its (small) depth, and no keyword statement runs after the decision."""
    store(QUERY, query_decision({}, intercept=0.0, result=0.9, clearly_off=clearly_off))
    monkeypatch.setattr(keyword, "query_translations", _translations)  # the leg asked alone, below
    monkeypatch.setattr(pipeline, "query_translations", _translations)  # the search's translated list
    seen: dict[str, object] = {"decided": False, "after": [], "before": 0}
    run_lists, decide, words_alone = pipeline._run_lists, pipeline._decide, pipeline._words_alone

    def lists_of(given, **kw):  # type: ignore[no-untyped-def]
        seen["given"] = given
        return run_lists(given, **kw)

    def decided(*args):  # type: ignore[no-untyped-def]
        made = decide(*args)
        seen["decided"] = True
        return made

    def narrowed(lists, least):  # type: ignore[no-untyped-def]
        seen["wide"], seen["least"] = lists, least
        seen["narrowed"] = words_alone(lists, least)
        return seen["narrowed"]

    def statement(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        if "to_tsquery" in sql:
            if seen["decided"]:
                seen["after"].append(sql)  # type: ignore[attr-defined]
            else:
                seen["before"] += 1  # type: ignore[operator]
        return execute(sql, params, many, context)

    monkeypatch.setattr(pipeline, "_run_lists", lists_of)
    monkeypatch.setattr(pipeline, "_decide", decided)
    monkeypatch.setattr(pipeline, "_words_alone", narrowed)
    reached = 0
    for text in [CUT_MOST, CUT_ALL, "badges parking remote work", "remote work two days per week"]:
        seen.update(decided=False, after=[], before=0)
        seen.pop("least", None)
        with connection.execute_wrapper(statement):
            retrieve(text, hybrid_cut["alice"], depth=2)
        assert seen["before"], text  # the keyword lists ran, before the decision
        assert seen["after"] == [], text
        assert seen.get("least") == (1.0 if clearly_off > 0.5 else WORDS_ALONE[0]), text  # the words carried it
        g, least, wide, got = seen["given"], seen["least"], seen["wide"], seen["narrowed"]
        asked = keyword_leg(g.words, g.visible, g.filters, g.depth, min_coverage=least)  # type: ignore[attr-defined]
        args = (g.parsed, g.language, g.visible, g.filters, g.depth, g.side.embedder, g.owner)  # type: ignore[attr-defined]
        translated = translated_keyword_leg(*args, min_coverage=least)
        if asked or translated:
            assert _rows(got.keyword) == _rows(asked), text  # type: ignore[attr-defined]
            assert _rows(got.translated) == _rows(translated), text  # type: ignore[attr-defined]
        else:
            assert not got.keyword and not got.translated and not got.vector, text  # type: ignore[attr-defined]
        reached += _left_out(wide.keyword, asked) + _left_out(wide.translated, translated)  # type: ignore[attr-defined]
    assert reached  # a list cut at its depth: the old narrowing would have asked again
