"""The query decision in search: search can say "nothing matches", and count, facets and list agree.

The production decision (the bundled model's shipped policy) decides unless a test stores a literal
one (``stored_decision``), set around the features ``retrieve`` read for the query itself."""

from __future__ import annotations

import pytest

from search.decisions.query import QUERY, QueryFeatures
from search.embedding.embedders import get_embedder
from search.retrieval.hits import Filters
from search.retrieval.pipeline import retrieve
from search.retrieval.vector import vector_leg
from search.selectors import search_pages
from tests.decisions import query_decision, store
from tests.readers import visible_page_ids
from tests.search.retrieval_world import build

pytestmark = pytest.mark.django_db


def stored_decision(weights: dict[str, float], intercept: float, result: float = 0.5, clearly_off: float = 0.0) -> None:
    """The local model decides with these literal weights (features not named weigh nothing), as if calibrated."""
    store(QUERY, query_decision(weights, intercept, result=result, clearly_off=clearly_off))


def features_of(query: str, reader) -> QueryFeatures:  # type: ignore[no-untyped-def]
    """What the query decision was given for ``query`` (under the shipped policy)."""
    decision = retrieve(query, reader).decision
    assert decision is not None and decision.features is not None
    return decision.features


FLOOR_PAGES = ("remote", "teletravail", "parking", "expenses")  # open to staff, in two spaces
GIBBERISH = ["xyzzyplugh", "zzzz", "qsdfghjklm", "wxcvbn poiuyt"]


@pytest.fixture
def handbook(fast_passwords, make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    """Bob, who reads every page of a part of the retrieval test handbook."""
    return build(make_space, make_page, make_user, only=FLOOR_PAGES)["bob"]


def test_gibberish_finds_nothing_and_says_so(client, handbook):
    for query in GIBBERISH:
        assert retrieve(query, handbook).pages == [], query
        result = search_pages(user=handbook, query=query)
        assert result.total == 0 and result.results == [] and result.facets == {"space": [], "language": []}
    client.force_login(handbook)
    assert "No page matches" in client.get("/search/", {"q": "xyzzyplugh"}).content.decode()


def test_meaning_still_finds_a_page_that_shares_no_word(handbook):
    from handbook.models import Page

    refs = dict(Page.objects.values_list("id", "ref"))
    found = [refs[p.page_id] for p in retrieve("Can I do my job at my house?", handbook).pages]
    assert found and found[0] in {"remote", "teletravail"}


def test_every_neighbour_is_a_hit_when_the_decision_says_every_query_means_something(handbook):
    """The control: the decision is what empties the list (nearest neighbours always exist)."""
    stored_decision({}, intercept=1.0)  # p = σ(1) > 0.5 for any query, no floor
    assert len(retrieve("xyzzyplugh", handbook).pages) == len(FLOOR_PAGES)


def test_a_query_not_made_of_words_needs_more_meaning(handbook):
    """Keyboard mashes are as close in meaning as real questions; real questions share words."""
    query = "qsdfghjklm"
    seen = features_of(query, handbook)
    assert not seen.words
    # Confident from the nearest chunk's similarity, less 0.5 when the query is not made of words:
    stored_decision({"nearest": 100.0, "words": 50.0}, intercept=-100.0 * (seen.nearest - 0.01) - 50.0)
    assert retrieve(query, handbook).pages == []
    stored_decision({"nearest": 100.0}, intercept=-100.0 * (seen.nearest - 0.01))  # the control: words weigh nothing
    assert retrieve(query, handbook).pages


def test_the_floor_cuts_exact_and_hnsw_lists_alike(handbook):
    embedder = get_embedder()
    vector = embedder.embed_query("badges for the car park")
    ids = visible_page_ids(handbook)
    everything = vector_leg(vector, embedder.model_name, ids, Filters(), exact=True)
    middle = (everything[0].vector_distance + everything[-1].vector_distance) / 2
    exact = vector_leg(vector, embedder.model_name, ids, Filters(), exact=True, max_distance=middle)
    approx = vector_leg(vector, embedder.model_name, ids, Filters(), exact=False, max_distance=middle)
    assert 0 < len(exact) < len(everything)
    assert all(h.vector_distance <= middle for h in exact)
    assert [h.chunk_id for h in exact] == [h.chunk_id for h in approx]


def test_count_facets_and_list_agree_on_every_page(handbook):
    query = "work from home days"
    first = search_pages(user=handbook, query=query, per_page=1)
    assert first.total > 1
    listed = []
    for number in range(1, first.total + 1):
        page = search_pages(user=handbook, query=query, page=number, per_page=1)
        assert page.total == first.total
        assert sum(n for _slug, _title, n in page.facets["space"]) == page.total
        assert sum(n for _code, _name, n in page.facets["language"]) == page.total
        listed += [r.page_id for r in page.results]
    assert len(listed) == len(set(listed)) == first.total


OFF_TOPIC = ["How long do cats live?", "Quelle est la recette de la blanquette de veau ?"]


def test_questions_on_other_subjects_find_nothing(handbook):
    """GIVEN questions on everyday subjects the handbook does not cover THEN nothing matches, while a
    paraphrase of a handbook subject that shares none of its words still finds its page (the off-topic
    test must not turn it away; the test below shows the rule at work on both sides of its margin)."""
    for query in OFF_TOPIC:
        assert retrieve(query, handbook).pages == [], query
    assert retrieve("Can I do my job at my house?", handbook).pages


def test_a_query_closer_to_an_everyday_subject_is_not_confident(handbook):
    """Both sides of the decision for one query, the everyday sentence's similarity weighing against it."""
    query = OFF_TOPIC[0]
    seen = features_of(query, handbook)
    margin = seen.nearest - seen.everyday
    stored_decision({"nearest": 100.0, "everyday": -100.0}, intercept=-100.0 * (margin + 0.01))
    assert retrieve(query, handbook).pages == []
    stored_decision({"nearest": 100.0, "everyday": -100.0}, intercept=-100.0 * (margin - 0.01))
    assert retrieve(query, handbook).pages


def test_a_word_no_readable_page_holds_is_read_from_the_reader_s_pages_only(handbook, make_space, make_page):
    """GIVEN a decision on which a word no readable page holds ("grams") takes the confidence away, THEN
    nothing matches, also once a page bob cannot read holds it; once a page he reads holds it, the
    query is confident again and lists pages."""
    from handbook.models import Page

    space = Page.objects.get(ref="remote").space
    make_page(space, "The office kitchen", "# The office kitchen\n\nThe baking club keeps flour and cups here.")
    query = "how many grams of flour in a cup"
    seen = features_of(query, handbook)
    stored_decision({"nearest": 100.0, "unheld": -10.0}, intercept=-100.0 * (seen.nearest - 0.05))
    assert retrieve(query, handbook).decision.features.unheld
    assert retrieve(query, handbook).pages == []
    hidden = make_space("board-only", viewers=("board",))  # a page bob cannot read holding the words
    make_page(hidden, "Weights", "# Weights\n\nMany parcels over 500 grams go by courier.")
    assert retrieve(query, handbook).pages == []  # changes nothing for him
    make_page(space, "Weights", "# Weights\n\nMany parcels over 500 grams go by courier.")  # he reads it
    assert retrieve(query, handbook).pages


def test_a_question_clearly_on_another_subject_needs_every_word_in_one_chunk(handbook, make_page):
    """GIVEN a page that holds most words of a question on another subject, THEN the question lists it
    while it is not confident but not clearly off (its words alone must match: most of them do), and
    not once it is clearly off (then every word must be in one chunk: "long" is in none)."""
    from handbook.models import Page

    page = make_page(
        Page.objects.get(ref="remote").space,
        "Animals in the building",
        "# Animals in the building\n\nCats and dogs may not live in the building, guide dogs excepted.",
    )
    query = "how long do cats and dogs live"
    stored_decision({}, intercept=0.0, result=0.9, clearly_off=0.1)  # p = 0.5: not confident, not clearly off
    listed = retrieve(query, handbook).pages
    # Its words carry the match, so the pages only near in meaning rank but are not results.
    assert [p.page_id for p in listed] == [page.pk]
    stored_decision({}, intercept=0.0, result=0.9, clearly_off=0.6)  # p = 0.5: clearly off
    assert retrieve(query, handbook).pages == []


def test_a_word_left_untranslated_counts_as_missing_when_the_words_alone_must_match(handbook, monkeypatch):
    """GIVEN a query whose translation keeps only one of its words THEN, when its words alone must match,
    that one word is not "most of the query" in the other language ("capital of australia" ->
    "capitale"), while a translation of every word still finds the page, and without that requirement
    the one word does too."""
    from handbook.models import Page
    from search.retrieval import keyword
    from search.retrieval.query import parse_query

    teletravail = Page.objects.get(ref="teletravail").pk
    ids = visible_page_ids(handbook)
    query = parse_query("remote work two days per week")

    def pages(translation: str, least: float | None) -> list[int]:
        monkeypatch.setattr(keyword, "query_translations", lambda *a, **k: {"fr": translation})
        return [h.page_id for h in keyword.translated_keyword_leg(query, "en", ids, Filters(), min_coverage=least)]

    assert pages("télétravail", None) == [teletravail]
    assert pages("télétravail", 0.6) == []
    assert pages("télétravail possible deux jours par semaine", 0.6) == [teletravail]


def test_a_word_only_the_other_language_s_pages_hold_finds_them_through_its_translation(handbook, monkeypatch):
    """GIVEN "telework", which no page holds (the English page says "remote work") THEN its translation
    finds the French page: a word of another language is a word, whatever the pages of its own hold."""
    from handbook.models import Page
    from search.retrieval import pipeline

    monkeypatch.setattr(pipeline, "query_translations", lambda *a, **k: {"fr": "télétravail"})
    found = [p.page_id for p in retrieve("telework", handbook).pages]
    assert Page.objects.get(ref="teletravail").pk in found


def test_a_page_only_the_words_found_needs_most_of_them_when_meaning_was_searched(handbook, monkeypatch):
    """GIVEN pages that only the word lists found (typed words or their translation) THEN, with the
    vector lists run, each is a result only when it holds most of the question's words (one common
    word of four, or one translated word of four, is not a match); a page a vector list found stays,
    and a translated hit's coverage counts the words asked, a word left untranslated being missing."""
    from config.numbers import KEYWORD_ALONE_COVERAGE
    from search.retrieval import keyword
    from search.retrieval.fusion import without_weak_word_matches
    from search.retrieval.hits import ChunkHit, PageHit
    from search.retrieval.query import parse_query

    weak_words = PageHit(1, 0.5, [ChunkHit(10, 1, keyword_rank=1, coverage=0.25)])
    weak_translation = PageHit(2, 0.5, [ChunkHit(20, 2, translated_rank=1, coverage=0.25)])
    most = PageHit(
        3, 0.4, [ChunkHit(30, 3, keyword_rank=2, coverage=0.25), ChunkHit(31, 3, translated_rank=2, coverage=0.75)]
    )
    close = PageHit(4, 0.3, [ChunkHit(40, 4, keyword_rank=3, vector_rank=1, coverage=0.25)])
    centred = PageHit(5, 0.2, [ChunkHit(50, 5, crosslang_rank=1)])
    kept = without_weak_word_matches([weak_words, weak_translation, most, close, centred], KEYWORD_ALONE_COVERAGE)
    assert [p.page_id for p in kept] == [3, 4, 5]

    monkeypatch.setattr(keyword, "query_translations", lambda *a, **k: {"fr": "télétravail"})
    query = parse_query("remote work two days per week")
    hits = keyword.translated_keyword_leg(query, "en", visible_page_ids(handbook), Filters())
    assert hits and all(h.coverage is not None and h.coverage <= 1 / len(query.terms) + 1e-9 for h in hits)


def test_a_misspelt_stop_word_is_not_a_word_the_pages_lack(handbook):
    """Typo correction leaves stop-words alone ("combirn" for "combien"), so the unheld-word test must
    too; a real word the pages lack ("poux", one edit from "pour" but short) still counts."""
    from search.retrieval.relevance import unheld_words
    from search.statistics.scopes import reader_of

    assert unheld_words(["combirn", "poux", "teletravail"], reader_of(handbook), "fr") == ["poux"]
