"""Hybrid retrieval against the real database: keyword leg, vector leg, fusion, permissions, bad input."""

from __future__ import annotations

import pytest
from django.db import connection

from search.embedding.embedders import get_embedder
from search.models import Chunk
from search.retrieval.hits import Filters
from search.retrieval.pipeline import retrieve
from search.retrieval.query import parse_query
from search.retrieval.vector import vector_leg
from search.selectors import search_pages
from tests.readers import crosslang_leg, visible_page_ids
from tests.search.retrieval_world import SECRET, add_page, found, kw_leg, refs

pytestmark = pytest.mark.django_db


# --- keyword leg ------------------------------------------------------------------------


def test_title_match_ranks_above_body_match(kw):  # type: ignore[no-untyped-def]
    result = found(kw, "parking")
    assert result[:2] == ["parking", "access"]


def test_words_are_optional(kw):  # type: ignore[no-untyped-def]
    """A natural question with a word the page lacks ("zebra") still finds it."""
    result = found(kw, "Can I work from home during my trial period, zebra?")
    assert result[0] == "remote"
    assert "zebra" in parse_query("zebra").terms


def test_more_matching_words_rank_higher(kw):  # type: ignore[no-untyped-def]
    result = found(kw, "badges visitors reception")
    assert result.index("access") < result.index("parking")


def test_french_questions_find_the_french_page(kw):  # type: ignore[no-untyped-def]
    for question in (
        "Qu'est-ce que le télétravail ?",
        "Peut-on faire du télétravail ?",
        "Combien de jours de télétravail par semaine ?",
    ):
        assert found(kw, question)[:1] == ["teletravail"], question
    assert found(kw, "Peut-on reporter ses congés payés ?")[:1] == ["conges"]
    assert search_pages(user=kw["bob"], query="Qu'est-ce que le télétravail ?").query_language == "fr"


def test_accents_are_folded_on_the_query_side(kw):  # type: ignore[no-untyped-def]
    for query in ("conges payes", "congés payés", "CONGES PAYES", "Congés"):
        assert found(kw, query)[:1] == ["conges"], query
    for query in ("teletravail", "télétravail", "TÉLÉTRAVAIL"):
        assert found(kw, query)[:1] == ["teletravail"], query


def test_accents_are_folded_on_the_document_side(kw, make_page):  # type: ignore[no-untyped-def]
    add_page(
        kw,
        make_page,
        "unaccented",
        "Teletravail FAQ",
        "# Teletravail FAQ\n\nLe teletravail se demande en ligne.",
        language="fr",
    )
    assert "unaccented" in found(kw, "télétravail")


def test_quoted_phrase_is_required(kw):  # type: ignore[no-untyped-def]
    assert found(kw, '"trial period"') == ["remote"]
    assert found(kw, '"period trial"') == []  # word order matters inside quotes
    assert found(kw, 'remote "trial period"') == ["remote"]


def test_plain_words_stay_optional_next_to_a_phrase(kw):  # type: ignore[no-untyped-def]
    assert found(kw, 'zebra "trial period"') == ["remote"]


def test_minus_excludes(kw):  # type: ignore[no-untyped-def]
    with_both = found(kw, "badges")
    assert {"parking", "access"} <= set(with_both)
    without = found(kw, "badges -visitors")
    assert "parking" in without
    assert "access" not in without
    assert "parking" not in found(kw, 'badges -"building b"')


def test_only_exclusions_is_an_empty_search(kw):  # type: ignore[no-untyped-def]
    assert found(kw, "-parking") == []
    assert search_pages(user=kw["bob"], query="-parking").error == ""


# --- fusion against the database ------------------------------------------------------


def test_page_lists_all_its_matching_chunks(kw, make_page):  # type: ignore[no-untyped-def]
    page = add_page(
        kw,
        make_page,
        "bikes",
        "Bike policy",
        "# Bikes\n\nBikes go in the bike shed.\n\n## Repairs\n\nA bike repair kit sits by the shed.\n",
    )
    chunk_ids = set(Chunk.objects.filter(page=page).values_list("id", flat=True))
    assert len(chunk_ids) >= 2
    retrieval = retrieve("bike shed", kw["bob"])
    hits = [p for p in retrieval.pages if p.page_id == page.pk]
    assert len(hits) == 1  # one entry per page
    assert {c.chunk_id for c in hits[0].chunks} == chunk_ids
    assert hits[0].score == hits[0].chunks[0].score == max(c.score for c in hits[0].chunks)


def test_without_embeddings_results_follow_the_keyword_leg(kw):  # type: ignore[no-untyped-def]
    query = "badges parking visitors work"
    retrieval = retrieve(query, kw["bob"])
    assert retrieval.used_vectors is False
    first_seen: list[int] = []
    for hit in kw_leg(kw, query):
        if hit.page_id not in first_seen:
            first_seen.append(hit.page_id)
    assert [p.page_id for p in retrieval.pages] == first_seen
    assert len(first_seen) >= 3


def test_hybrid_both_legs_and_fusion(hybrid):  # type: ignore[no-untyped-def]
    retrieval = retrieve("work from home", hybrid["bob"])
    assert retrieval.used_vectors is True
    assert refs(hybrid, [p.page_id for p in retrieval.pages])[0] == "remote"
    best = retrieval.pages[0].best
    assert best.keyword_rank is not None and best.vector_rank is not None
    # A page found by both legs outranks every page found by one leg only.
    for page in retrieval.pages[1:]:
        if all(c.keyword_rank is None or c.vector_rank is None for c in page.chunks):
            assert page.score < retrieval.pages[0].score

    # The vector leg finds a paraphrase that shares no word with any page.
    query = "Is telecommuting allowed?"
    assert kw_leg(hybrid, query) == []  # no word in common with any page
    result = found(hybrid, query)
    assert result and result[0] in {"remote", "teletravail"}


def test_exact_and_hnsw_paths_agree(hybrid):  # type: ignore[no-untyped-def]
    embedder = get_embedder()
    assert embedder is not None
    vector = embedder.embed_query("badges for the car park")
    ids = visible_page_ids(hybrid["alice"])
    exact = vector_leg(vector, embedder.model_name, ids, Filters(), exact=True)
    approx = vector_leg(vector, embedder.model_name, ids, Filters(), exact=False)
    assert len(exact) == Chunk.objects.count()  # alice sees everything
    assert [h.chunk_id for h in exact[:3]] == [h.chunk_id for h in approx[:3]]
    assert [h.vector_distance for h in exact] == sorted(h.vector_distance for h in exact)
    assert exact[0].vector_distance == pytest.approx(approx[0].vector_distance, abs=1e-5)


def test_hnsw_walks_use_their_own_candidate_breadth(hybrid, monkeypatch):  # type: ignore[no-untyped-def]
    """The plain leg walks the graph with HNSW_EF_SEARCH; the language-centred partitions with their
    wider PARTITION_EF_SEARCH (translated questions rely on them alone)."""
    from search.retrieval import crosslang
    from search.retrieval import vector as retrieval

    monkeypatch.setattr(crosslang, "MIN_CHUNKS_PER_LANGUAGE", 1)  # both languages get a partition…
    monkeypatch.setattr(crosslang, "PARTITION_EXACT_CHUNKS", 0)  # …walked through its graph
    embedder = get_embedder()
    vector = embedder.embed_query("badges for the car park")
    visible = visible_page_ids(hybrid["alice"])
    seen: list[str] = []

    def capture(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        if "set_config('hnsw.ef_search'" in sql:
            seen.append(params[0])
        elif "ORDER BY distance" in sql and seen:  # the walk itself runs under the settings just made
            with connection.cursor() as cursor:
                cursor.execute("SELECT current_setting('hnsw.ef_search'), current_setting('enable_seqscan')")
                ef_search, seqscan = cursor.fetchone()
                seen.append(f"{ef_search}/{seqscan}")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(capture):
        assert vector_leg(vector, embedder.model_name, visible, Filters(), exact=False)
    assert seen == [str(retrieval.HNSW_EF_SEARCH), f"{retrieval.HNSW_EF_SEARCH}/off"]
    seen.clear()
    with connection.execute_wrapper(capture):
        crosslang_leg(vector, embedder.model_name, "en", visible, Filters(), 10, exact=False)
    partitions = len(crosslang.language_stats(embedder.model_name))
    assert partitions == 2
    assert seen == [str(crosslang.PARTITION_EF_SEARCH), f"{crosslang.PARTITION_EF_SEARCH}/off"] * partitions
    assert crosslang.PARTITION_EF_SEARCH > retrieval.HNSW_EF_SEARCH


# --- permissions inside both legs ------------------------------------------------------


def test_both_legs_retrieve_and_search_pages_filter_by_permission(hybrid):  # type: ignore[no-untyped-def]
    secret_ids = {hybrid["ids"][r] for r in SECRET}
    assert not {h.page_id for h in kw_leg(hybrid, "canary remote parking")} & secret_ids
    assert {h.page_id for h in kw_leg(hybrid, "canary", user=hybrid["alice"])} == secret_ids  # positive control

    embedder = get_embedder()
    vector = embedder.embed_query("remote work allowance")
    for exact in (True, False):
        hits = vector_leg(vector, embedder.model_name, visible_page_ids(hybrid["bob"]), Filters(), exact=exact)
        assert hits and not {h.page_id for h in hits} & secret_ids
        hits = vector_leg(vector, embedder.model_name, visible_page_ids(hybrid["alice"]), Filters(), exact=exact)
        assert secret_ids <= {h.page_id for h in hits}

    query = "canary remote work parking badges"
    bob = found(hybrid, query)
    assert bob and not set(bob) & SECRET
    assert set(found(hybrid, query, user=hybrid["alice"])) >= SECRET

    shown = search_pages(user=hybrid["bob"], query=query, per_page=50)
    assert shown.results and not {r.ref for r in shown.results} & SECRET
    assert shown.total == len(bob)
    assert {slug for slug, _title, _n in shown.facets["space"]} <= {"people", "finance"}
    assert sum(n for _slug, _title, n in shown.facets["space"]) == shown.total
    assert "CANARY" not in " ".join(str(r.snippet) for r in shown.results)

    alice = search_pages(user=hybrid["alice"], query=query, per_page=50)
    assert {"payroll", "hr-confidential"} <= {slug for slug, _title, _n in alice.facets["space"]}
    assert alice.total > shown.total


def test_the_bitmap_form_of_the_visible_set_filters_every_leg_alike(hybrid, monkeypatch):  # type: ignore[no-untyped-def]
    """Large visible sets reach SQL as a bitmap: same hits, same permission filtering as the id array."""
    from search.retrieval import visibility

    query = "canary remote work parking badges"
    embedder = get_embedder()
    vector = embedder.embed_query(query)
    runs = {}
    for array_max in (10_000, 0):  # 0: every set takes the bitmap form
        monkeypatch.setattr(visibility, "ARRAY_MAX_IDS", array_max)
        runs[array_max] = {
            user: (
                [h.chunk_id for h in kw_leg(hybrid, query, user=hybrid[user])],
                [
                    h.chunk_id
                    for h in vector_leg(
                        vector, embedder.model_name, visible_page_ids(hybrid[user]), Filters(), exact=False
                    )
                ],
                [
                    h.chunk_id
                    for h in vector_leg(
                        vector, embedder.model_name, visible_page_ids(hybrid[user]), Filters(language="en"), exact=True
                    )
                ],
                found(hybrid, query, user=hybrid[user]),
            )
            for user in ("bob", "alice")
        }
    assert runs[0] == runs[10_000]
    bob_keyword, bob_vector, _bob_exact, bob_pages = runs[0]["bob"]
    secret_chunks = set(Chunk.objects.filter(page__ref__in=SECRET).values_list("id", flat=True))
    assert bob_keyword and bob_vector and not (set(bob_keyword) | set(bob_vector)) & secret_chunks
    assert bob_pages and not set(bob_pages) & SECRET
    assert set(runs[0]["alice"][3]) >= SECRET  # positive control


def test_filtering_by_a_hidden_space_shows_nothing(kw):  # type: ignore[no-untyped-def]
    shown = search_pages(user=kw["bob"], query="canary remote", space="hr-confidential")
    assert shown.results == [] and shown.total == 0


def test_restriction_granted_later_is_visible_at_once(kw):  # type: ignore[no-untyped-def]
    from django.contrib.auth.models import Group

    assert "salary" not in found(kw, "canary allowance")
    kw["bob"].groups.add(Group.objects.get(name="payroll"))
    assert "salary" in found(kw, "canary allowance")


def test_both_ways_into_the_keyword_list_give_the_same_hits(kw, monkeypatch):  # type: ignore[no-untyped-def]
    """A small share readable: the scan starts from the readable pages too; else from the words alone."""
    from search.retrieval import keyword

    queries = ["parking badges", "work from home", "congés payés report", "salary dismissal", "zebra"]
    for user in (kw["bob"], kw["alice"]):
        hits = {}
        for pages in (True, False):
            monkeypatch.setattr(keyword, "pages_way_in", lambda visible, pages=pages: pages)
            hits[pages] = [[(h.chunk_id, h.keyword_rank, h.coverage) for h in kw_leg(kw, q, user)] for q in queries]
        assert hits[True] == hits[False]
        assert any(hits[True])
