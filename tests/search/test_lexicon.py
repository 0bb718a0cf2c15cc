"""Word translation without an LLM: the handbook's words, embedded, translate query words."""

from __future__ import annotations

import pytest

from search.lexicon import word_translation as lexicon
from search.models import LexiconWord
from search.retrieval.pipeline import retrieve
from search.services import index_sweep, lexicon_build
from tests.tiny_lexicon import tiny_lexicon

TRAVEL_EN = (
    "# Travel reimbursement\n\n"
    "Submit your travel reimbursement with every receipt within thirty days of the trip. "
    "Hotel, train and taxi receipts are required."
)
SECURITY_EN = "# Security incidents\n\nReport a lost laptop or a phishing email to the security team at once."
CANTEEN_FR = "# Cantine\n\nLe repas de la cantine coûte quatre euros, café compris, pour chaque agent."
BIKES_FR = "# Vélos\n\nLe local vélo du bâtiment compte quarante places ; les trottinettes y sont interdites."
BUDGET_EN = "# Budget\n\nThe board approves the yearly budget in March. Salary bands are listed below."


@pytest.fixture(autouse=True)
def _fresh_lexicon(monkeypatch):  # type: ignore[no-untyped-def]
    yield from tiny_lexicon(monkeypatch)


@pytest.fixture
def bilingual(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    people = make_space("people", viewers=("staff",))
    board = make_space("board", viewers=("board",))
    pages = {
        "travel": make_page(people, "Travel reimbursement", TRAVEL_EN, ref="travel"),
        "security": make_page(people, "Security incidents", SECURITY_EN, ref="security"),
        "canteen": make_page(people, "Cantine", CANTEEN_FR, language="fr", ref="canteen"),
        "bikes": make_page(people, "Vélos", BIKES_FR, language="fr", ref="bikes"),
        "budget": make_page(board, "Budget", BUDGET_EN, ref="budget"),
    }
    return pages, make_user("bob", "staff"), make_user("carol", "staff", "board")


def _keyword_refs(question, user):  # type: ignore[no-untyped-def]
    from handbook.models import Page

    refs = dict(Page.objects.values_list("id", "ref"))
    return [refs[p.page_id] for p in retrieve(question, user, use_vectors=False).pages]


@pytest.mark.django_db
def test_build_stores_each_language_vocabulary_and_is_incremental(bilingual, django_capture_on_commit_callbacks):
    pages, _bob, _carol = bilingual
    counts = lexicon_build()
    assert counts["en"] > 10 and counts["fr"] > 10
    english = set(LexiconWord.objects.filter(language="en").values_list("word", flat=True))
    french = set(LexiconWord.objects.filter(language="fr").values_list("word", flat=True))
    assert {"reimbursement", "receipts", "phishing"} <= english
    assert {"cantine", "repas", "velo"} <= french  # accent-folded, like the keyword leg
    assert "the" not in english and "les" not in french  # stop-words are not vocabulary
    ids = dict(LexiconWord.objects.values_list("word", "id"))

    lexicon_build()  # nothing changed: no word is embedded or written again
    assert dict(LexiconWord.objects.values_list("word", "id")) == ids

    from handbook.services import page_delete

    with django_capture_on_commit_callbacks(execute=True):  # the reindex drops the page's chunks
        page_delete(page=pages["security"])
    lexicon_build()
    assert not LexiconWord.objects.filter(word="phishing").exists()  # gone with its page
    assert LexiconWord.objects.filter(word="reimbursement", id=ids["reimbursement"]).exists()


@pytest.mark.django_db
def test_tokens_longer_than_any_word_are_not_vocabulary(bilingual, make_space, make_page):
    """A real handbook holds hashes and long identifiers: the build must not fail on them (the
    stored word is at most 100 characters) and they are not words to translate."""
    token = "a" + "b1c2" * 40  # 161 characters, one token
    make_page(make_space("dev"), "Checksums", f"# Checksums\n\nThe release checksum is {token} for the build.")
    counts = lexicon_build()
    assert counts["en"] > 10
    assert not LexiconWord.objects.filter(word__startswith="ab1c2").exists()
    assert LexiconWord.objects.filter(word="checksum").exists()


@pytest.mark.django_db
def test_french_question_finds_the_english_page_by_translated_words(bilingual, settings):
    pages, bob, _carol = bilingual
    question = "remboursement des frais de voyage"
    settings.SEARCH_WORD_TRANSLATION = False
    assert "travel" not in _keyword_refs(question, bob)  # no shared word: the keyword leg alone misses it
    assert not LexiconWord.objects.exists()

    settings.SEARCH_WORD_TRANSLATION = True
    # Never built (no sweep has run): the first search that needs the vocabulary builds it.
    result = retrieve(question, bob, use_vectors=False)
    assert LexiconWord.objects.filter(language="fr").exists()
    assert result.pages and result.pages[0].page_id == pages["travel"].pk
    assert any(h.translated_rank for h in result.pages[0].chunks)
    lexicon_build()  # what the sweep would do changes nothing
    again = retrieve(question, bob, use_vectors=False)
    assert [(p.page_id, p.score) for p in again.pages] == [(p.page_id, p.score) for p in result.pages]


@pytest.mark.django_db
def test_english_question_finds_the_french_page(bilingual):
    _pages, bob, _carol = bilingual
    lexicon_build()
    assert "canteen" in _keyword_refs("canteen meal price", bob)


@pytest.mark.django_db
def test_translation_never_reaches_pages_the_user_cannot_read(bilingual):
    _pages, bob, carol = bilingual
    lexicon_build()  # "budget" and "salary" are vocabulary: built from every page
    question = "le budget annuel et les grilles de salaire"
    assert "budget" in _keyword_refs(question, carol)
    assert "budget" not in _keyword_refs(question, bob)


@pytest.mark.django_db
def test_untranslatable_words_and_one_language_handbooks(make_space, make_page, make_user):
    space = make_space("people")
    make_page(space, "Travel reimbursement", TRAVEL_EN, ref="travel")
    bob = make_user("bob", "staff")
    assert set(lexicon_build()) == {"en"}  # no French text: no French vocabulary
    assert not lexicon.lexicon_is_stale(LexiconWord.objects.first().model)  # one language: nothing to rebuild
    assert _keyword_refs("remboursement des frais", bob) == []


@pytest.mark.django_db
def test_sweep_queues_a_rebuild_only_when_stale(bilingual):
    from search.embedding.embedders import local_embedder

    model = local_embedder().model_name
    assert lexicon.lexicon_is_stale(model)  # never built
    index_sweep()  # tasks run eagerly in tests: the sweep's rebuild happens here
    assert LexiconWord.objects.filter(language="fr").exists()
    assert not lexicon.lexicon_is_stale(model)
    assert lexicon.lexicon_is_stale("another-model")


@pytest.mark.django_db
def test_index_status_page_reports_the_vocabulary(client, bilingual, make_user):
    from django.urls import reverse

    admin_user = make_user("root", superuser=True)
    client.force_login(admin_user)
    url = reverse("admin:search_indexstate_changelist")
    page = client.get(url).content.decode()
    assert "Index status" in page and "not built" in page
    counts = lexicon_build()
    page = client.get(url).content.decode()
    assert f"en: {counts['en']}, fr: {counts['fr']}" in page


@pytest.mark.django_db
def test_a_keyboard_mash_gets_no_translation_and_finds_nothing(bilingual, make_space, make_page):
    """GIVEN "zzzz" or "optdq", held by no page THEN no word spelt alike ("xyz", "opt") stands in for
    them: nothing is found, while a real word held only by the other language's pages still is."""
    _pages, bob, _carol = bilingual
    formats = "# Formats\n\nLes fichiers xyz et les options opt sont acceptés ; le code w3c aussi."
    make_page(make_space("formats", viewers=("staff",)), "Formats", formats, language="fr", ref="formats")
    lexicon_build()
    from search.embedding.model_switch import query_embedder

    embedder = query_embedder()
    for mash in ("zzzz", "optdq", "wq0x3"):
        assert lexicon.translate_words(mash, "en", "fr", embedder) is None
        assert _keyword_refs(mash, bob) == []
    assert lexicon.translate_words("canteen", "en", "fr", embedder) == "cantine"


@pytest.mark.django_db
def test_a_build_too_large_for_a_search_is_tried_once_then_left_to_the_worker(bilingual, monkeypatch):
    """GIVEN no vocabulary yet and a build larger than a search may make WHEN readers search THEN the
    first search counts the vocabulary, finds it too large and queues the worker's build; the next
    ones do not count it again (seconds each on a large index, under the build lock)."""
    from search.statistics.scopes import reader_of

    _pages, bob, carol = bilingual
    lexicon.forget()
    monkeypatch.setattr(lexicon, "ON_DEMAND_NEW_WORDS", 0)  # any new word makes it too large
    tries, queued = [], []
    real_build = lexicon.build_lexicon
    monkeypatch.setattr(lexicon, "build_lexicon", lambda *a, **k: tries.append(k) or real_build(*a, **k))
    monkeypatch.setattr(lexicon, "enqueue", lambda name, *a, **k: queued.append(name))

    assert lexicon.reader_version(reader_of(bob)) is None
    assert lexicon.reader_version(reader_of(carol)) is None
    assert lexicon.reader_version(reader_of(bob)) is None
    assert len(tries) == 1 and tries[0]["scopes"] is None
    assert queued == ["search.tasks.refresh_lexicon"]
    assert not LexiconWord.objects.exists()  # nothing written by the refused build

    # Once the worker's build has landed, searches read it as before.
    lexicon_build()
    assert lexicon.reader_version(reader_of(bob)) is not None
