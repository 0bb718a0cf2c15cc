"""The first minute after an import answers as every minute after it.

GIVEN an empty handbook and a worker that has not yet run the vocabulary build it was sent,
WHEN a small bilingual corpus is loaded with ``load_corpus --wait`` and bob asks, at once, an
English question only a French page answers,
THEN the search and the answer are the ones he gets after every background task (the sweep, the
vocabulary build) has run: ``--wait`` waited for what search and Ask build from the pages, and says so.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.cache import cache
from django.core.management import call_command

from search.retrieval import crosslang
from search.retrieval.pipeline import retrieve
from tests.tiny_lexicon import tiny_lexicon

pytestmark = pytest.mark.django_db

QUESTION = "how many days of remote work per week"
CORPUS = [
    {
        "id": "leave",
        "title": "Annual leave",
        "lang": "en",
        "body": "# Annual leave\n\nYou get 25 days of annual leave per year. Leave requests go to your manager.",
    },
    {
        "id": "expenses",
        "title": "Expenses",
        "lang": "en",
        "body": "# Expenses\n\nSubmit travel receipts within thirty days. Taxi and train tickets are refunded.",
    },
    {
        "id": "teletravail",
        "title": "Télétravail",
        "lang": "fr",
        "body": "# Télétravail\n\nJusqu'à 2 jours de télétravail par semaine, avec l'accord de votre responsable.",
    },
    {
        "id": "cantine",
        "title": "Cantine",
        "lang": "fr",
        "body": "# Cantine\n\nLe repas de la cantine coûte quatre euros, café compris.",
    },
]


@pytest.fixture(autouse=True)
def _small_handbook(monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(crosslang, "MIN_CHUNKS_PER_LANGUAGE", 1)  # four pages have language means
    yield from tiny_lexicon(monkeypatch)


def _observe(user) -> dict:  # type: ignore[no-untyped-def]
    result = retrieve(QUESTION, user)
    out = io.StringIO()
    call_command("ask", QUESTION, "--user", user.username, "--json", "--no-cache", stdout=out)
    return {
        "pages": [(p.page_id, round(p.score, 12)) for p in result.pages],
        "translated": sorted(h.chunk_id for p in result.pages for h in p.chunks if h.translated_rank),
        "answer": json.loads(out.getvalue()),
    }


def test_load_corpus_wait_then_ask_at_once_equals_after_every_background_task(tmp_path, make_user, monkeypatch):
    from search import tasks
    from search.models import LexiconWord
    from search.services import index_sweep, lexicon_build
    from search.statistics.term_statistics import refresh_lexeme_stats

    # The build the import queues stays queued: no worker has got to it yet.
    monkeypatch.setattr(tasks.refresh_lexicon, "apply_async", lambda *args, **kwargs: None)
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in CORPUS))
    bob = make_user("bob", "staff")
    out = io.StringIO()
    call_command("load_corpus", str(corpus), "--space", "people", "--viewer-group", "staff", "--wait", stdout=out)
    said = out.getvalue()
    for waited in ("index, answer units, summary", "keyword statistics", "vocabulary built", "language means"):
        assert waited in said, said
    assert LexiconWord.objects.filter(language="fr").exists()  # before any search asked for it

    first = _observe(bob)
    assert first["translated"]  # the English question reached the French page through the vocabulary
    assert "télétravail" in json.dumps(first["answer"]["citations"], ensure_ascii=False)

    # Every background task: the sweep, the vocabulary build, the statistics, caches gone.
    index_sweep()
    lexicon_build()
    refresh_lexeme_stats()
    cache.clear()
    assert _observe(bob) == first
