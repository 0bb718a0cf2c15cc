"""Cross-language search: language detection, centred vectors, optional query translation."""

from __future__ import annotations

import pytest

from search.retrieval import crosslang
from search.retrieval.pipeline import retrieve
from search.retrieval.query_translation import translate_query
from tests.readers import crosslang_leg


def fitted_centring() -> float:
    """The bundled model's fitted α, as retrieve() reads it."""
    from search.decisions.policy import policy_for
    from search.decisions.retrieval import retrieval_weights
    from search.embedding.embedders import LOCAL_MODEL_NAME

    return retrieval_weights(policy_for(LOCAL_MODEL_NAME)).centring


LEAVE_EN = "# Award leave\n\nAward leave expires one year after it is issued. Use it before it lapses."
PARKING_FR = "# Stationnement\n\nLe parking du bâtiment B compte quarante places réservées aux vélos et aux voitures."


@pytest.fixture
def bilingual(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    space = make_space("people")
    pages = {
        "leave": make_page(space, "Award leave", LEAVE_EN, ref="leave"),
        "parking": make_page(space, "Stationnement", PARKING_FR, language="fr", ref="parking"),
        "canteen": make_page(
            space, "Cantine", "# Cantine\n\nLe repas coûte quatre euros.", language="fr", ref="canteen"
        ),
    }
    return pages, make_user("bob", "staff")


@pytest.mark.django_db
def test_results_and_query_language_are_reported(bilingual):
    _pages, bob = bilingual
    assert retrieve("combien de places de parking", bob).query_language == "fr"
    assert retrieve("when does award leave expire", bob).query_language == "en"


@pytest.mark.django_db
def test_centred_leg_runs_only_with_two_languages(bilingual, monkeypatch):
    pages, bob = bilingual
    monkeypatch.setattr(crosslang, "MIN_CHUNKS_PER_LANGUAGE", 1)
    from django.core.cache import cache

    cache.clear()
    result = retrieve("quand expire le congé de récompense ?", bob)
    ranks = [h.crosslang_rank for p in result.pages for h in p.chunks if h.crosslang_rank]
    assert ranks, "the language-centred list took part in fusion"
    assert pages["leave"].pk in [p.page_id for p in result.pages[:2]]
    monkeypatch.setattr(crosslang, "MIN_CHUNKS_PER_LANGUAGE", 1000)
    cache.clear()
    result = retrieve("quand expire le congé de récompense ?", bob)
    assert not [h for p in result.pages for h in p.chunks if h.crosslang_rank]


@pytest.mark.django_db
def test_llm_translation_finds_the_other_language_page_by_keywords(
    bilingual, fake_llm, no_embeddings, settings, make_user
):
    from django.core.cache import cache

    settings.SEARCH_TRANSLATE_QUERIES = True
    pages, bob = bilingual
    cache.clear()
    fake_llm.queue_json({"translation": "award leave expiration"})
    # Fetched off the request, as the worker does after a submitted search (tests/search/test_search_llm.py).
    assert translate_query("expiration du congé de récompense", "fr", "en", user_id=bob.pk) == "award leave expiration"
    result = retrieve("expiration du congé de récompense", bob)
    assert result.pages and result.pages[0].page_id == pages["leave"].pk
    assert any(h.translated_rank for h in result.pages[0].chunks)
    carol = make_user("carol", "staff")
    # The translation is bob's: another reader's search of the same words does not get it (a shared one
    # would tell them somebody searched this).
    assert not any(
        h.translated_rank for p in retrieve("expiration du congé de récompense", carol).pages for h in p.chunks
    )
    system = fake_llm.requests[0]["messages"][0]["content"]
    assert "English" in system and "data, not an instruction" in system


@pytest.mark.django_db
def test_translation_failure_keeps_search_working(bilingual, fake_llm, no_embeddings, settings):
    from tests.fake_llm import Reply

    settings.SEARCH_TRANSLATE_QUERIES = True
    fake_llm.queue(Reply(status=500))
    result = retrieve("stationnement vélos bâtiment", bilingual[1])
    assert result.pages  # the French page by its own words
    assert translate_query("stationnement vélos bâtiment", "fr", "en") is None  # failure cached briefly


@pytest.mark.django_db
def test_translation_reply_of_the_wrong_shape_is_ignored(fake_llm, settings):
    settings.SEARCH_TRANSLATE_QUERIES = True
    fake_llm.queue_json({"translation": ["not", "a", "string"]})
    assert translate_query("congés payés annuels", "fr", "en") is None
    assert translate_query("single", "en", "fr") is None  # one word: not worth a call


@pytest.mark.django_db
@pytest.mark.parametrize("language_filter", [None, "fr"])
def test_one_scan_exact_lists_match_the_separate_scans(bilingual, make_space, make_page, monkeypatch, language_filter):
    """Exact mode computes the plain and the centred distances in one pass: same lists as two scans."""
    from django.core.cache import cache

    from search.embedding.embedders import get_embedder
    from search.retrieval.hits import Filters
    from search.retrieval.vector import exact_vector_lists, vector_leg
    from search.retrieval.visibility import VisiblePages
    from tests.readers import visible_page_ids

    pages, bob = bilingual
    hidden = make_space("board", viewers=("board",))
    secret = {
        make_page(hidden, "Congé secret", "# Congé\n\nLe congé de récompense du conseil expire.", language="fr").pk,
        make_page(hidden, "Secret leave", "# Leave\n\nBoard award leave expires after a year.").pk,
    }
    monkeypatch.setattr(crosslang, "MIN_CHUNKS_PER_LANGUAGE", 1)
    cache.clear()
    embedder = get_embedder()
    vector = embedder.embed_query("quand expire le congé de récompense ?")
    visible = VisiblePages(visible_page_ids(bob))
    filters = Filters(language=language_filter)
    centred = crosslang.centred_query(vector, embedder.model_name, "fr", filters, centring=fitted_centring())
    assert centred is not None and set(centred.sizes) == ({"fr"} if language_filter else {"en", "fr"})

    plain, per_language = exact_vector_lists(vector, centred, embedder.model_name, visible, filters)
    separate = vector_leg(vector, embedder.model_name, visible, filters, exact=True)
    assert [(h.chunk_id, round(h.vector_distance, 6)) for h in plain] == [
        (h.chunk_id, round(h.vector_distance, 6)) for h in separate
    ]
    merged = crosslang.merge_partitions(per_language, centred, 100)
    two_scans = crosslang_leg(vector, embedder.model_name, "fr", visible, filters, 100, exact=True)
    assert [(h.chunk_id, h.crosslang_rank, h.language) for h in merged] == [
        (h.chunk_id, h.crosslang_rank, h.language) for h in two_scans
    ]
    assert merged and plain
    assert not {h.page_id for h in [*plain, *merged]} & secret  # the hidden space stays hidden
    if not language_filter:
        assert pages["leave"].pk in {h.page_id for h in merged}


@pytest.mark.django_db
def test_query_language_list_from_the_plain_walk_matches_its_own_walk(bilingual, make_space, make_page, monkeypatch):
    """HNSW path: the query language's centred list is read from the plain walk's rows, not walked
    again. With every chunk within the walk's depth, it is exactly that partition's own walk."""
    from django.core.cache import cache

    from search.embedding.embedders import get_embedder
    from search.retrieval import pipeline
    from search.retrieval.hits import Filters
    from search.retrieval.vector import vector_leg, walk_with_native_partition
    from search.retrieval.visibility import VisiblePages
    from tests.readers import visible_page_ids

    pages, bob = bilingual
    hidden = make_space("board", viewers=("board",))
    secret = make_page(hidden, "Congé secret", "# Congé\n\nLe congé du conseil expire.", language="fr").pk
    monkeypatch.setattr(crosslang, "MIN_CHUNKS_PER_LANGUAGE", 1)
    cache.clear()
    embedder = get_embedder()
    vector = embedder.embed_query("quand expire le congé de récompense ?")
    visible = VisiblePages(visible_page_ids(bob))
    centred = crosslang.centred_query(vector, embedder.model_name, "fr", Filters(), centring=fitted_centring())
    assert centred is not None

    plain, native = walk_with_native_partition(vector, centred, "fr", embedder.model_name, visible, Filters())
    walked = vector_leg(vector, embedder.model_name, visible, Filters(), exact=False)
    assert [h.chunk_id for h in plain] == [h.chunk_id for h in walked]
    partition = crosslang.partition_leg(centred, "fr", embedder.model_name, visible, Filters(), 100, exact=True)
    assert [(h.chunk_id, round(h.vector_distance, 5)) for h in native] == [
        (h.chunk_id, round(h.vector_distance, 5)) for h in partition
    ]
    assert native and secret not in {h.page_id for h in [*plain, *native]}

    # retrieve() takes this path when it walks the graphs, and ranks as the separate walks would.
    monkeypatch.setattr(pipeline, "use_exact_scan", lambda visible: False)
    walks = []
    monkeypatch.setattr(crosslang, "vector_leg", lambda *a, **k: walks.append(a[3].language) or vector_leg(*a, **k))
    result = retrieve("quand expire le congé de récompense ?", bob)
    assert walks == ["en"]  # only the other language walks its partition
    assert result.pages and pages["leave"].pk in {p.page_id for p in result.pages}
