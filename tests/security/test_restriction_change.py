"""A page taken away from a reader stops shaping what they see at once, not after the sweep.

GIVEN bob reads the IT space, whose VPN page alone holds "wireguard" and "handshake",
WHEN the page is restricted to a group bob is not in, or moved to a space he cannot read, and bob
searches *immediately* (no sweep, no rebuild, no worker task),
THEN every statistic he is served — "did you mean", known words, IDF, the word translation, the
results and their scores — is what it is in a world where the page never existed; and when the
restriction is lifted he gets back what he had while the page was open to him.

Scope stamps (``search/statistics/stamps.py``) make each reader's first search recount the scopes
of theirs a page entered or left.
"""

from __future__ import annotations

import pytest

from search.retrieval import crosslang, suggest
from search.retrieval.pipeline import retrieve
from search.retrieval.query_translation import query_translations
from search.services import lexicon_build
from search.statistics.scopes import reader_of
from search.statistics.term_statistics import refresh_lexeme_stats, term_weights
from tests.tiny_lexicon import tiny_lexicon

pytestmark = pytest.mark.django_db

VPN = "# VPN\n\nThe wireguard handshake renews every two minutes; a stale handshake drops the tunnel.\n"
PAGES = {
    "laptop": ("Laptop", "en", "# Laptop\n\nYour laptop is encrypted; report a lost laptop to the helpdesk.\n"),
    "tunnel": ("Network", "en", "# Network\n\nThe office network needs no tunnel; guests use the guest network.\n"),
    "poste": ("Poste", "fr", "# Poste de travail\n\nVotre ordinateur portable est chiffré par le service.\n"),
}
TYPOS = ["wiregaurd handshke", "laptpo tunnle", "handshak renews"]
WORDS = ["wireguard", "handshake", "laptop", "tunnel", "renews"]
QUERIES = ["wireguard handshake", "poignée de main du tunnel", "laptop tunnel handshake"]


@pytest.fixture(autouse=True)
def _small_handbook(monkeypatch, settings):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(crosslang, "MIN_CHUNKS_PER_LANGUAGE", 1)
    suggest.forget()
    yield from tiny_lexicon(monkeypatch)
    suggest.forget()


def _observe(bob) -> dict:  # type: ignore[no-untyped-def]
    """What bob is served, computed now, with no cache cleared (a cleared cache would rebuild)."""
    reader = reader_of(bob)
    seen: dict = {f"suggestion:{t}": suggest.did_you_mean(t, reader) for t in TYPOS}
    vocabulary = suggest.reader_vocabulary(reader)
    seen["vocabulary"] = dict(vocabulary.chunks) if vocabulary else None
    seen["weights"] = {
        lang: sorted((t.term, round(t.idf, 12), t.ndoc) for t in terms)
        for lang, terms in term_weights(WORDS, reader).items()
    }
    for q in QUERIES:
        seen[f"translate:{q}"] = [query_translations(q, lang, reader=reader, owner=bob.pk) for lang in ("en", "fr")]
        seen[f"retrieve:{q}"] = [
            (p.page_id, round(p.score, 12), [(c.chunk_id, c.keyword_rank, c.translated_rank) for c in p.chunks])
            for p in retrieve(q, bob).pages
        ]
    return seen


def _settled() -> None:
    """What the sweep does: every statistic recounted from the index as it is."""
    refresh_lexeme_stats()
    lexicon_build()


def test_restricting_moving_and_opening_a_page_change_a_readers_statistics_at_once(
    make_space, make_page, make_user, django_capture_on_commit_callbacks
):
    from django.contrib.auth.models import Group

    from handbook.services import page_move, page_set_restrictions

    it = make_space("it", viewers=("staff",))
    secure = make_space("secure", viewers=("netops",))
    for ref, (title, language, body) in PAGES.items():
        make_page(it, title, body, language=language, ref=ref)
    bob = make_user("bob", "staff")
    netops = Group.objects.get_or_create(name="netops")[0]
    _settled()
    never_existed = _observe(bob)

    vpn = make_page(it, "VPN", VPN, ref="vpn")
    _settled()
    open_to_bob = _observe(bob)
    assert open_to_bob["suggestion:wiregaurd handshke"] == "wireguard handshake"  # the control sees the page
    assert never_existed["suggestion:wiregaurd handshke"] != "wireguard handshake"

    page_set_restrictions(page=vpn, groups=[netops])  # announces nothing: no task, no sweep
    assert _observe(bob) == never_existed

    page_set_restrictions(page=vpn, groups=[])
    assert _observe(bob) == open_to_bob

    with django_capture_on_commit_callbacks(execute=False):  # the reindex it queues has not run
        page_move(page=vpn, space=secure)
    assert _observe(bob) == never_existed
