"""The similarity floor: search can say "nothing matches", and count, facets and list agree."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from search.indexing.embedders import get_embedder
from search.retrieval.hits import Filters
from search.retrieval.pipeline import retrieve
from search.retrieval.relevance import Floor, parse_floor, similarity_floor
from search.retrieval.vector import vector_leg
from search.selectors import search_pages
from tests.readers import visible_page_ids
from tests.search.retrieval_world import build

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _calibrated_floor(settings):  # type: ignore[no-untyped-def]
    settings.EMBEDDINGS_SIMILARITY_FLOOR = ""  # the floor calibrated for the local model


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


def test_without_a_floor_every_neighbour_is_a_hit(settings, handbook):
    """The control: the floor is what empties the list (nearest neighbours always exist)."""
    settings.EMBEDDINGS_SIMILARITY_FLOOR = "-1"
    assert len(retrieve("xyzzyplugh", handbook).pages) == len(FLOOR_PAGES)


def test_a_query_sharing_no_word_with_the_pages_needs_the_wordless_similarity(settings, handbook):
    """Keyboard mashes are as close in meaning as real questions; real questions share words."""
    embedder = get_embedder()
    query = "qsdfghjklm"
    hits = vector_leg(
        embedder.embed_query(query), embedder.model_name, visible_page_ids(handbook), Filters(), exact=True
    )
    nearest = 1.0 - hits[0].vector_distance
    below, above = nearest - 0.01, min(nearest + 0.01, 1.0)
    settings.EMBEDDINGS_SIMILARITY_FLOOR = f"-1,-1,{below},{above}"
    assert retrieve(query, handbook).pages == []
    settings.EMBEDDINGS_SIMILARITY_FLOOR = f"-1,-1,{below},{below}"  # the control: same query, rule off
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


def test_floor_settings(settings):
    assert parse_floor("0.5") == Floor(0.5, 0.5, 0.5, 0.5)
    assert parse_floor("0.8, 0.3") == Floor(0.8, 0.3, 0.8, 0.8)
    assert parse_floor("0.78,0,0.85") == Floor(0.78, 0.0, 0.85, 0.85)
    assert parse_floor("0.78,0,0.85,0.88") == Floor(0.78, 0.0, 0.85, 0.88)
    assert parse_floor("0.78,0,0.85,0.88,0.01") == Floor(0.78, 0.0, 0.85, 0.88, 0.01)
    assert parse_floor("0.78,0,0.85,0.88").off_topic_margin is None  # no off-topic test unless asked
    for bad in ("high", "2", "0.1,0.2,0.3,0.4,0.5,0.6"):
        with pytest.raises(ImproperlyConfigured):
            parse_floor(bad)
    settings.EMBEDDINGS_BASE_URL, settings.EMBEDDINGS_MODEL = "http://127.0.0.1:9/v1", "text-embedding-3-small"
    assert similarity_floor("text-embedding-3-small").plain == -1.0  # uncalibrated: no floor
    settings.EMBEDDINGS_SIMILARITY_FLOOR = "0.4,0.1"
    assert similarity_floor("text-embedding-3-small") == Floor(0.4, 0.1, 0.4, 0.4)
    assert similarity_floor(get_embedder.__module__) == Floor(-1.0, -1.0)  # another, unknown model


OFF_TOPIC = ["How long do cats live?", "Quelle est la recette de la blanquette de veau ?"]


def _nearest(query: str, reader) -> tuple[list[float], float, float]:  # type: ignore[no-untyped-def]
    """The query's vector, its nearest readable chunk's similarity and its off-topic gap (exact scan)."""
    from search.retrieval.off_topic import off_topic_gap

    embedder = get_embedder()
    vector = embedder.embed_query(query)
    hits = vector_leg(vector, embedder.model_name, visible_page_ids(reader), Filters(), exact=True)
    nearest = 1.0 - hits[0].vector_distance
    return vector, nearest, off_topic_gap(nearest, vector, embedder)


def test_questions_on_other_subjects_find_nothing(handbook):
    """GIVEN questions on everyday subjects the handbook does not cover THEN nothing matches, while a
    paraphrase of a handbook subject that shares none of its words still finds its page (the off-topic
    test must not turn it away; the test below shows the rule at work on both sides of its margin)."""
    for query in OFF_TOPIC:
        assert retrieve(query, handbook).pages == [], query
    assert retrieve("Can I do my job at my house?", handbook).pages


def test_a_query_closer_to_an_everyday_subject_is_not_confident(settings, handbook):
    """Both sides of the off-topic margin, for one query whose nearest chunk clears the confident floor."""
    query = OFF_TOPIC[0]
    _vector, nearest, gap = _nearest(query, handbook)
    confident = nearest - 0.01
    settings.EMBEDDINGS_SIMILARITY_FLOOR = f"-1,-1,{confident},{confident},{gap + 0.01}"
    assert retrieve(query, handbook).pages == []
    # The control, clear of the band in which a word no page holds ("cats") takes the confidence away.
    from search.retrieval.relevance import UNHELD_WORD_BAND

    settings.EMBEDDINGS_SIMILARITY_FLOOR = f"-1,-1,{confident},{confident},{gap - UNHELD_WORD_BAND - 0.005}"
    assert retrieve(query, handbook).pages


def test_the_workplace_sentences_weigh_in_the_off_topic_test(settings, handbook, make_page, monkeypatch):
    """GIVEN a page that speaks of baking, and a baking question, with the margin set between the
    question's gap measured from its nearest chunk alone and its gap with the workplace sentences weighed
    in, THEN it lists pages when the chunk alone decides and none with the workplace sentences: a chunk
    (everyday words and all) says "near" more easily than the generic work sentences do."""
    from handbook.models import Page
    from search.retrieval import off_topic

    make_page(
        Page.objects.get(ref="remote").space,
        "The office kitchen",
        "# The office kitchen\n\nThe baking club keeps flour, sugar and measuring cups in the kitchen cupboard.",
    )
    embedder = get_embedder()
    query = "how many grams of flour in a cup"
    vector, nearest, blended = _nearest(query, handbook)
    chunk_alone = nearest - off_topic.EVERYDAY.nearest(vector, embedder)
    assert off_topic.WORKPLACE.nearest(vector, embedder) < nearest  # the generic sentences are farther
    assert blended < chunk_alone
    confident = nearest - 0.01  # the nearest chunk clears it: only the margin decides
    settings.EMBEDDINGS_SIMILARITY_FLOOR = f"-1,-1,{confident},{confident},{(blended + chunk_alone) / 2}"
    assert retrieve(query, handbook).pages == []
    monkeypatch.setattr(off_topic, "WORKPLACE_WEIGHT", 0.0)  # the control: the nearest chunk alone
    assert retrieve(query, handbook).pages


def test_a_query_barely_above_the_margin_with_a_word_no_page_holds_is_not_confident(
    settings, handbook, make_space, make_page, monkeypatch
):
    """GIVEN a baking question just above the off-topic margin (within ``UNHELD_WORD_BAND``), one of whose
    words ("grams") no readable page holds, THEN nothing matches, also once a page bob cannot read holds
    it; once a page he reads holds that word,
    or without the band, the question is confident again and lists pages ("many" is missing too at first)."""
    from handbook.models import Page
    from search.retrieval import pipeline

    space = Page.objects.get(ref="remote").space
    make_page(space, "The office kitchen", "# The office kitchen\n\nThe baking club keeps flour and cups here.")
    query = "how many grams of flour in a cup"
    _vector, nearest, gap = _nearest(query, handbook)
    margin = gap - pipeline.UNHELD_WORD_BAND / 2
    settings.EMBEDDINGS_SIMILARITY_FLOOR = f"-1,-1,{nearest - 0.01},{nearest - 0.01},{margin}"
    assert retrieve(query, handbook).pages == []
    monkeypatch.setattr(pipeline, "UNHELD_WORD_BAND", 0.0)  # the control: the margin alone
    assert retrieve(query, handbook).pages
    monkeypatch.undo()
    hidden = make_space("board-only", viewers=("board",))  # a page bob cannot read holding the words
    make_page(hidden, "Weights", "# Weights\n\nMany parcels over 500 grams go by courier.")
    assert retrieve(query, handbook).pages == []  # changes nothing for him
    make_page(space, "Weights", "# Weights\n\nMany parcels over 500 grams go by courier.")  # it holds the words
    assert _nearest(query, handbook)[2] >= margin  # still above it
    assert retrieve(query, handbook).pages


def test_a_question_clearly_on_another_subject_needs_every_word_in_one_chunk(settings, handbook, make_page):
    """GIVEN a page that holds most words of a question on another subject, THEN the question lists it
    while it is only a little nearer an everyday sentence than the page (its words alone must match:
    most of them do), and not once it is clearly nearer (then every word must be in one chunk)."""
    from handbook.models import Page
    from search.retrieval.off_topic import CLEARLY_OFF_TOPIC

    page = make_page(
        Page.objects.get(ref="remote").space,
        "Animals in the building",
        "# Animals in the building\n\nCats and dogs may not live in the building, guide dogs excepted.",
    )
    query = "how long do cats and dogs live"
    _vector, nearest, gap = _nearest(query, handbook)
    confident = nearest - 0.01  # the nearest chunk clears it: only the margin decides
    a_little = gap + 0.005  # not confident, not clearly off topic: most of the words suffice
    settings.EMBEDDINGS_SIMILARITY_FLOOR = f"-1,-1,{confident},{confident},{a_little}"
    listed = retrieve(query, handbook).pages
    assert page.pk in [p.page_id for p in listed]
    # Its words carry the match, so the pages only near in meaning (every vector hit clears the plain
    # floor of -1 here) rank but are not results: the animals page is the one page listed.
    assert [p.page_id for p in listed] == [page.pk]
    clearly = gap + CLEARLY_OFF_TOPIC + 0.005  # "long" is in no chunk
    settings.EMBEDDINGS_SIMILARITY_FLOOR = f"-1,-1,{confident},{confident},{clearly}"
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
    from search.retrieval import keyword

    monkeypatch.setattr(keyword, "query_translations", lambda *a, **k: {"fr": "télétravail"})
    found = [p.page_id for p in retrieve("telework", handbook).pages]
    assert Page.objects.get(ref="teletravail").pk in found


def test_a_page_only_the_words_found_needs_most_of_them_when_meaning_was_searched(handbook, monkeypatch):
    """GIVEN pages that only the word lists found (typed words or their translation) THEN, with the
    vector lists run, each is a result only when it holds most of the question's words (one common
    word of four, or one translated word of four, is not a match); a page a vector list found stays,
    and a translated hit's coverage counts the words asked, a word left untranslated being missing."""
    from search.retrieval import keyword
    from search.retrieval.fusion import without_weak_word_matches
    from search.retrieval.hits import ChunkHit, PageHit
    from search.retrieval.keyword import KEYWORD_ALONE_COVERAGE
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
