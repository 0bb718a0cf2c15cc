"""Hybrid retrieval against the real database: keyword leg, vector leg, fusion, permissions, bad input."""

from __future__ import annotations

import pytest
from django.db import connection

from handbook.models import Page
from handbook.permissions import visible_page_ids
from search.embedders import get_embedder
from search.models import Chunk
from search.query import MAX_QUERY_CHARS, parse_query
from search.retrieval import ChunkHit, Filters, answer_elsewhere, fuse, keyword_leg, retrieve, vector_leg
from search.selectors import highlight, search_pages

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fast_passwords(settings):  # type: ignore[no-untyped-def]
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


PAGES = {
    # ref: (space, title, body, language, restricted_to)
    "remote": (
        "people",
        "Remote work",
        "# Remote work\n\nEmployees may work from home two days per week once the trial period is over. "
        "Agree the days with your manager.",
        "en",
        (),
    ),
    "teletravail": (
        "people",
        "Télétravail",
        "# Télétravail\n\nLe télétravail est possible deux jours par semaine après la période "
        "d'essai. Les jours sont fixés avec votre responsable.",
        "fr",
        (),
    ),
    "conges": (
        "people",
        "Congés payés",
        "# Congés payés\n\nChaque salarié bénéficie de vingt-cinq jours de congés payés par an. "
        "On peut reporter cinq jours sur l'année suivante.",
        "fr",
        (),
    ),
    "parking": (
        "people",
        "Parking",
        "# Parking\n\nThe garage under building B has forty spaces. Badges open the gate from seven to eight.",
        "en",
        (),
    ),
    "access": (
        "people",
        "Office access",
        "# Office access\n\nBadges open every door. Visitors sign in at reception; parking for visitors "
        "is on the street.",
        "en",
        (),
    ),
    "expenses": (
        "finance",
        "Expense reports",
        "# Expense reports\n\nSubmit receipts within thirty days. Taxi and train tickets are reimbursed "
        "when you travel for work.",
        "en",
        (),
    ),
    "salary": (
        "payroll",
        "Salary bands",
        "# Salary bands\n\nCANARY remote work allowance: employees who work from home receive forty euros "
        "per month. Parking badges and congés payés are not covered.",
        "en",
        ("payroll",),
    ),
    "dismissal": (
        "hr-confidential",
        "Dismissal procedure",
        "# Dismissal procedure\n\nCANARY remote work cannot be withdrawn as a sanction. Parking badges "
        "are returned on the last day.",
        "en",
        (),
    ),
}
SECRET = {"salary", "dismissal"}


def _build(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    spaces = {
        "people": make_space("people", viewers=("staff",), editors=("hr",)),
        "finance": make_space("finance", viewers=("staff",), editors=("finance",)),
        "payroll": make_space("payroll", viewers=("staff",), editors=("payroll",)),
        "hr-confidential": make_space("hr-confidential", viewers=("hr",), editors=("hr",)),
    }
    pages = {
        ref: make_page(spaces[space], title, body, language=lang, restricted_to=restricted, ref=ref)
        for ref, (space, title, body, lang, restricted) in PAGES.items()
    }
    return {
        "pages": pages,
        "ids": {ref: page.pk for ref, page in pages.items()},
        "bob": make_user("bob", "staff"),
        "alice": make_user("alice", "staff", "hr", "payroll"),
    }


@pytest.fixture
def kw(no_embeddings, make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    """The corpus indexed without vectors: keyword leg only."""
    return _build(make_space, make_page, make_user)


@pytest.fixture
def hybrid(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    """The corpus indexed with the local embedding model."""
    world = _build(make_space, make_page, make_user)
    assert not Chunk.objects.filter(embedding__isnull=True).exists()
    return world


def refs(world, page_ids) -> list[str]:  # type: ignore[no-untyped-def]
    by_id = {v: k for k, v in world["ids"].items()}
    return [by_id[i] for i in page_ids]


def found(world, query: str, user=None, **kw) -> list[str]:  # type: ignore[no-untyped-def]
    return refs(world, [p.page_id for p in retrieve(query, user or world["bob"], **kw).pages])


def kw_leg(world, query: str, user=None, filters=None) -> list[ChunkHit]:  # type: ignore[no-untyped-def]
    return keyword_leg(parse_query(query), visible_page_ids(user or world["bob"]), filters or Filters())


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
    page = make_page(
        kw["pages"]["remote"].space,
        "Teletravail FAQ",
        "# Teletravail FAQ\n\nLe teletravail se demande en ligne.",
        language="fr",
        ref="unaccented",
    )
    kw["ids"]["unaccented"] = page.pk
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


# --- fusion (unit) ------------------------------------------------------------------


def test_candidates_are_the_rarest_words_that_fit_the_cap(monkeypatch):  # type: ignore[no-untyped-def]
    from search import retrieval
    from search.lexemes import TermWeight

    terms = [
        TermWeight("common", 1.0, 50),
        TermWeight("rare", 3.0, 3),
        TermWeight("mid", 2.0, 5),
        TermWeight("b", 2.5, 4),
    ]
    assert [t.term for t in retrieval._candidate_terms(terms, 10)] == ["rare", "b"]  # 3 + 4 fit, + 5 does not
    assert [t.term for t in retrieval._candidate_terms(terms, 12)] == ["rare", "b", "mid"]
    # Every word more common than the cap: the rarest one still brings candidates.
    two = [TermWeight("x", 1.0, 50), TermWeight("y", 1.0, 20)]
    assert [t.term for t in retrieval._candidate_terms(two, 10)] == ["y"]
    assert retrieval._candidate_terms([], 10) == []


def test_a_tight_cap_keeps_the_chunks_of_the_rarest_word(kw, monkeypatch):  # type: ignore[no-untyped-def]
    from search import retrieval

    # "parking" is on four pages bob sees two of; "garage" only on the parking page.
    wide = {h.page_id for h in kw_leg(kw, "parking garage")}
    assert wide >= {kw["ids"]["parking"], kw["ids"]["access"]}
    monkeypatch.setattr(retrieval, "KEYWORD_CANDIDATE_CAP", 1)
    tight = kw_leg(kw, "parking garage")
    assert [h.page_id for h in tight] == [kw["ids"]["parking"]]  # the rare word's chunk, not a sample
    # A pass's own cap (the translated query's) wins over the default.
    visible = visible_page_ids(kw["bob"])
    assert {h.page_id for h in keyword_leg(parse_query("parking garage"), visible, Filters(), cap=1000)} == wide


def test_fuse_rrf_math():
    keyword = [ChunkHit(1, page_id=10, keyword_rank=1), ChunkHit(2, page_id=20, keyword_rank=2)]
    vector = [
        ChunkHit(2, page_id=20, vector_rank=1, vector_distance=0.1),
        ChunkHit(3, page_id=30, vector_rank=2, vector_distance=0.2),
    ]
    pages = fuse(keyword, vector)
    assert [p.page_id for p in pages] == [20, 10, 30]  # found by both legs first
    assert pages[0].score == pytest.approx(1 / 62 + 1 / 61)
    assert pages[1].score == pytest.approx(1 / 61)
    assert pages[2].score == pytest.approx(1 / 62)
    both = pages[0].best
    assert (both.keyword_rank, both.vector_rank, both.vector_distance) == (2, 1, 0.1)


def test_fuse_two_mid_ranks_beat_one_top_rank():
    keyword = [ChunkHit(1, 10, keyword_rank=1)] + [ChunkHit(100 + i, 100 + i, keyword_rank=i) for i in range(2, 10)]
    keyword.append(ChunkHit(2, 20, keyword_rank=10))
    vector = [ChunkHit(200 + i, 200 + i, vector_rank=i) for i in range(1, 10)] + [ChunkHit(2, 20, vector_rank=10)]
    pages = fuse(keyword, vector)
    assert pages[0].page_id == 20  # 2/70 > 1/61
    assert pages[0].score == pytest.approx(2 / 70)


def test_fuse_page_scores_as_its_best_chunk():
    keyword = [ChunkHit(5, 10, keyword_rank=1), ChunkHit(6, 20, keyword_rank=2), ChunkHit(7, 10, keyword_rank=3)]
    pages = fuse(keyword, [])
    assert [p.page_id for p in pages] == [10, 20]
    assert [c.chunk_id for c in pages[0].chunks] == [5, 7]  # best first
    assert pages[0].score == pytest.approx(1 / 61)  # not the sum of its chunks
    assert pages[0].best.chunk_id == 5


def test_fuse_k_parameter_and_ties():
    pages = fuse([ChunkHit(9, 2, keyword_rank=1)], [ChunkHit(8, 1, vector_rank=1)], k=1)
    assert [p.page_id for p in pages] == [1, 2]  # equal scores: lower page id first
    assert pages[0].score == pytest.approx(0.5) and pages[1].score == pytest.approx(0.5)


def test_fuse_translated_query_counts_once_with_the_keyword_query():
    """A chunk found by the query and by its translation scores at its better rank, not twice."""
    keyword = [ChunkHit(1, 10, keyword_rank=1), ChunkHit(2, 20, keyword_rank=2)]
    translated = [ChunkHit(2, 20, keyword_rank=1), ChunkHit(3, 30, keyword_rank=2)]
    pages = fuse(keyword, [], translated=translated)
    assert [p.page_id for p in pages] == [10, 20, 30]
    assert pages[1].score == pytest.approx(1 / 61)  # max(1/62, 1/61), not 1/62 + 1/61
    assert pages[1].best.translated_rank == 1
    assert pages[2].score == pytest.approx(1 / 62)


def test_fuse_vector_weight_override_keeps_distances():
    keyword = [ChunkHit(1, 10, keyword_rank=1)]
    vector = [ChunkHit(2, 20, vector_rank=1, vector_distance=0.1), ChunkHit(1, 10, vector_rank=2, vector_distance=0.2)]
    pages = fuse(keyword, vector, vector_weight=0.0)
    assert [p.page_id for p in pages] == [10, 20]
    assert pages[0].score == pytest.approx(1 / 61)  # the vector rank adds nothing
    assert pages[1].score == 0.0 and pages[1].best.vector_distance == 0.1  # Ask still sees the distance


def test_answer_elsewhere_needs_a_long_question_and_a_clear_majority():
    def hits(languages):  # type: ignore[no-untyped-def]
        return [ChunkHit(i, i, crosslang_rank=i + 1, language=lang) for i, lang in enumerate(languages)]

    long_fr = "quelle est la règle pour les congés"
    assert answer_elsewhere(hits(["en"] * 9 + ["fr"]), "fr", long_fr)
    assert not answer_elsewhere(hits(["en"] * 7 + ["fr"] * 3), "fr", long_fr)  # 70 %: not clear enough
    assert not answer_elsewhere(hits(["en"] * 10), "fr", "congés payés")  # two words: language unsure
    assert not answer_elsewhere(hits(["fr"] * 10), "fr", long_fr)
    assert not answer_elsewhere([], "fr", long_fr)
    assert answer_elsewhere(hits(["en"] * 8 + ["fr"] * 2 + ["fr"] * 10), "fr", long_fr)  # only the top 10 count


def test_fuse_empty_and_input_untouched():
    assert fuse([], []) == []
    hit = ChunkHit(1, 10, keyword_rank=1)
    fuse([hit], [ChunkHit(1, 10, vector_rank=1)])
    assert hit.score == 0.0 and hit.vector_rank is None


# --- fusion against the database ------------------------------------------------------


def test_page_lists_all_its_matching_chunks(kw, make_page):  # type: ignore[no-untyped-def]
    page = make_page(
        kw["pages"]["remote"].space,
        "Bike policy",
        "# Bikes\n\nBikes go in the bike shed.\n\n## Repairs\n\nA bike repair kit sits by the shed.\n",
        ref="bikes",
    )
    kw["ids"]["bikes"] = page.pk
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
    from search import crosslang, retrieval

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
        crosslang.crosslang_leg(vector, embedder.model_name, "en", visible, Filters(), 10, exact=False)
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
    from search import visibility

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


# --- filters ----------------------------------------------------------------------


def test_filter_by_space(kw):  # type: ignore[no-untyped-def]
    result = found(kw, "work", filters=Filters(space="finance"))
    assert result == ["expenses"]
    shown = search_pages(user=kw["bob"], query="work", space="finance")
    assert [r.ref for r in shown.results] == ["expenses"]
    # Facets count the unfiltered result set.
    assert {slug for slug, _t, _n in shown.facets["space"]} == {"people", "finance"}


def test_filter_by_language(kw):  # type: ignore[no-untyped-def]
    result = found(kw, "jours télétravail congés badges", filters=Filters(language="fr"))
    assert set(result) == {"teletravail", "conges"}
    shown = search_pages(user=kw["bob"], query="jours télétravail congés badges", language="en")
    assert {r.ref for r in shown.results} == {"parking", "access"}
    assert {code for code, _name, _n in shown.facets["language"]} == {"en", "fr"}


def test_unknown_space_filter_finds_nothing(kw):  # type: ignore[no-untyped-def]
    assert found(kw, "parking", filters=Filters(space="nope")) == []


def test_pagination(kw):  # type: ignore[no-untyped-def]
    first = search_pages(user=kw["bob"], query="badges parking visitors work", per_page=2)
    second = search_pages(user=kw["bob"], query="badges parking visitors work", per_page=2, page=2)
    assert len(first.results) == 2 and first.has_next and not first.has_previous
    assert second.has_previous
    assert not {r.page_id for r in first.results} & {r.page_id for r in second.results}
    assert first.total == second.total >= 3


# --- bad input --------------------------------------------------------------------


def test_empty_queries_return_nothing_quietly(kw):  # type: ignore[no-untyped-def]
    for query in ("", "   ", "\t\n", "-", '""', '-""', "---", "!!!"):
        shown = search_pages(user=kw["bob"], query=query)
        assert shown.error == "", query
        assert shown.results == [] and shown.total == 0, query


def test_overlong_query_is_a_clear_error(kw):  # type: ignore[no-untyped-def]
    shown = search_pages(user=kw["bob"], query="parking " * 1300)  # ~10 kB
    assert shown.results == []
    assert "too long" in shown.error and str(MAX_QUERY_CHARS) in shown.error


def test_query_at_the_limit_is_accepted(kw):  # type: ignore[no-untyped-def]
    query = ("parking " * 200)[:MAX_QUERY_CHARS]
    shown = search_pages(user=kw["bob"], query=query)
    assert shown.error == ""
    assert shown.results and shown.results[0].ref == "parking"


def test_control_characters_are_ignored(kw):  # type: ignore[no-untyped-def]
    shown = search_pages(user=kw["bob"], query="\x00par\x01\x7f king\u200b \ud800 parking\x1b[31m")
    assert shown.error == ""
    assert shown.results and shown.results[0].ref == "parking"


HOSTILE = [
    "&|!():*<->'\\",
    "parking & | ! ( ) : * <-> ' \\",
    "parking:* & !visitors",
    "'parking'",
    "(parking",
    "park<->ing",
    "a:*A&B|C",
    "'; DROP TABLE handbook_page; --",
    '" OR 1=1 --',
    "%s %(or)s %%s",
    "{visible} {filters}",
    "$$ $1 \\x00",
    "ʕ•ᴥ•ʔ 🚗🅿️",
    '"unterminated phrase parking',
    '- -parking "-"',
]


def test_syntax_and_sqlish_input_never_raises(kw):  # type: ignore[no-untyped-def]
    for query in HOSTILE:
        shown = search_pages(user=kw["bob"], query=query)
        assert shown.error == "", query
        assert isinstance(shown.results, list)
        retrieve(query, kw["bob"])  # the lower layer does not raise either
        assert not {r.ref for r in shown.results} & SECRET, query
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM handbook_page")
        assert cursor.fetchone()[0] == Page.objects.count() == len(PAGES)


def test_syntax_characters_around_words_still_find(kw):  # type: ignore[no-untyped-def]
    assert found(kw, "parking:* & !(garage)")[0] == "parking"


def test_stop_words_only_query(kw):  # type: ignore[no-untyped-def]
    shown = search_pages(user=kw["bob"], query="the of and le la les")
    assert shown.error == ""


@pytest.mark.parametrize("kind", ["anonymous", "inactive", "no-groups"])
def test_users_who_may_read_nothing_find_nothing(kw, make_user, kind):  # type: ignore[no-untyped-def]
    from django.contrib.auth.models import AnonymousUser

    if kind == "anonymous":
        user = AnonymousUser()
    elif kind == "inactive":
        user = kw["alice"]
        user.is_active = False
        user.save()
    else:
        user = make_user("carol")
    assert retrieve("parking canary", user).pages == []
    shown = search_pages(user=user, query="parking canary")
    assert shown.results == [] and shown.total == 0 and shown.error == ""
    assert all(not values for values in shown.facets.values())


# --- snippets -----------------------------------------------------------------------


def test_highlight_escapes_html_and_marks_matches():
    out = highlight("<script>alert('x')</script> Parking & badges for <b>visitors</b>", ["parking", "visitors"])
    assert "<script>" not in out and "<b>" not in out
    assert "&lt;script&gt;" in out and "&amp;" in out
    assert "<mark>Parking</mark>" in out
    assert "<mark>visitors</mark>" in out


def test_highlight_marks_accented_words_by_folded_prefix():
    out = highlight("Les congés payés sont posés en ligne.", ["conges", "payes"])
    assert "<mark>congés</mark>" in out and "<mark>payés</mark>" in out


def test_highlight_windows_long_text_around_the_first_match():
    text = "filler " * 100 + "the parking garage" + " tail" * 100
    out = highlight(text, ["parking"], limit=120)
    assert out.startswith("… ") and out.endswith(" …")
    assert "<mark>parking</mark>" in out
    assert len(out) < 200


def test_highlight_with_no_words_is_escaped_text():
    assert highlight("a < b", []) == "a &lt; b"
    assert highlight("Œuvre <i>", ["oeuvre"]) == "Œuvre &lt;i&gt;"  # folding changes lengths: no marks


def test_search_snippets_are_escaped(kw, make_page):  # type: ignore[no-untyped-def]
    page = make_page(
        kw["pages"]["remote"].space,
        "Scooters",
        "# Scooters\n\nScooters <script>alert(1)</script> park in bay <img src=x onerror=alert(1)> C.",
        ref="scooters",
    )
    shown = search_pages(user=kw["bob"], query="scooters")
    result = next(r for r in shown.results if r.page_id == page.pk)
    assert "<script" not in result.snippet and "<img" not in result.snippet
    assert "<mark>Scooters</mark>" in result.snippet
