"""Answer-unit vectors are stored at index time, kept true to the page, and read by Ask."""

from __future__ import annotations

import pytest

from handbook.services import page_save
from search.ask.answers import answer_question
from search.embedding.embedders import LocalE5Embedder, local_embedder
from search.indexing.unit_vectors import _insert, page_units_embed, text_hash, units_mark
from search.models import Chunk, IndexState, UnitVector
from statements.answer_units import chunk_units, revision_units

CARD = """# Corporate card

Cards are issued to employees who travel for work.

| Limit | Amount |
|---|---|
| Monthly ceiling | 3,000 € |
| Single purchase | 800 € |

## Lost card

Call the bank within 24 hours when a card is lost.
"""


def _units_of(page) -> set[tuple[int, str]]:  # type: ignore[no-untyped-def]
    chunks = list(Chunk.objects.filter(page=page).values_list("id", "revision_id", "anchor", "heading", "text"))
    by_revision = revision_units({c[1] for c in chunks})
    return {
        (chunk_id, text_hash(u.text))
        for chunk_id, revision_id, anchor, heading, text in chunks
        for u in chunk_units(by_revision[revision_id], anchor, heading, text)
    }


def _stored(page) -> set[tuple[int, str]]:  # type: ignore[no-untyped-def]
    return set(UnitVector.objects.filter(chunk__page=page).values_list("chunk_id", "text_hash"))


@pytest.fixture
def card(make_space, make_page, make_user):  # type: ignore[no-untyped-def]
    space = make_space("money", viewers=("staff",))
    return {"page": make_page(space, "Corporate card", CARD, ref="card"), "bob": make_user("bob", "staff")}


@pytest.mark.django_db
def test_indexing_stores_a_vector_for_every_unit_of_every_chunk(card):
    page = card["page"]
    expected = _units_of(page)
    assert len(expected) >= 4  # the sentences and both table rows
    assert _stored(page) == expected
    assert IndexState.objects.get(page=page).units_model == units_mark(local_embedder().model_name)
    row = next(u for u in revision_units([page.published_revision_id])[page.published_revision_id] if u.kind == "row")
    stored = UnitVector.objects.get(text_hash=text_hash(row.text), chunk__page=page)
    again = local_embedder().embed_passages([row.text])[0]
    assert max(abs(a - b) for a, b in zip(stored.embedding, again, strict=True)) < 1e-4


@pytest.mark.django_db
def test_ask_embeds_no_unit_at_question_time_and_quotes_as_it_would_live(card, monkeypatch):
    """GIVEN the page's unit vectors stored WHEN bob asks THEN no passage text is embedded, and the
    answer is the one Ask gives when it embeds every unit itself."""
    question = "What is the monthly ceiling of the corporate card?"
    calls: list[list[str]] = []
    real = LocalE5Embedder.embed_passages

    def counting(self, texts):  # type: ignore[no-untyped-def]
        calls.append(list(texts))
        return real(self, texts)

    monkeypatch.setattr(LocalE5Embedder, "embed_passages", counting)
    stored = answer_question(user=card["bob"], question=question, rate_limit=False, use_cache=False, log=False)
    assert calls == []
    assert stored.mode == "extractive" and "3,000" in stored.citations[0].quote
    UnitVector.objects.all().delete()
    live = answer_question(user=card["bob"], question=question, rate_limit=False, use_cache=False, log=False)
    assert calls  # now they had to be embedded
    assert [c.quote for c in live.citations] == [c.quote for c in stored.citations]


@pytest.mark.django_db
def test_an_edit_replaces_the_units_that_changed_and_drops_the_old_ones(card, django_capture_on_commit_callbacks):
    page = card["page"]
    before = _stored(page)
    body = CARD.replace("| Monthly ceiling | 3,000 € |", "| Monthly ceiling | 4,500 € |")
    with django_capture_on_commit_callbacks(execute=True):
        page_save(page=page, title=page.title, body=body)
    page.refresh_from_db()
    after = _stored(page)
    assert after == _units_of(page)
    assert after != before and after & before  # the lost-card sentence kept its vector
    texts = {u.text for units in revision_units([page.published_revision_id]).values() for u in units}
    assert any("4,500" in t for t in texts) and not any("3,000" in t for t in texts)
    assert IndexState.objects.get(page=page).units_model == units_mark(local_embedder().model_name)


@pytest.mark.django_db
def test_a_vector_is_not_written_for_a_chunk_replaced_meanwhile(card):
    chunk = Chunk.objects.filter(page=card["page"]).first()
    vector = [0.0] * 384
    assert _insert([(chunk.pk, "a" * 32, vector), (10**12, "b" * 32, vector)], local_embedder().model_name) == 1
    assert not UnitVector.objects.filter(chunk_id=10**12).exists()


@pytest.mark.django_db
def test_the_sweep_restores_missing_units(card):
    from search.services import index_sweep

    page = card["page"]
    expected = _stored(page)
    UnitVector.objects.filter(chunk__page=page).delete()
    IndexState.objects.filter(page=page).update(units_model="")
    index_sweep()  # tasks run eagerly in the tests
    assert _stored(page) == expected
    assert page_units_embed(page_id=page.pk) == 0  # nothing left to embed


@pytest.mark.django_db
def test_another_model_s_units_are_dropped_once_the_page_is_stored_again(card):
    """After a model switch completes, the old model's unit vectors are deleted page by page."""
    chunk = Chunk.objects.filter(page=card["page"]).first()
    UnitVector.objects.create(chunk=chunk, model="old-model", text_hash="c" * 32, embedding=[0.0] * 384)
    page_units_embed(page_id=card["page"].pk)
    assert not UnitVector.objects.filter(model="old-model").exists()
    assert _stored(card["page"]) == _units_of(card["page"])


@pytest.mark.django_db
def test_a_new_unit_rule_has_the_sweep_store_every_page_again(card, monkeypatch):
    """GIVEN units stored under the current rule WHEN the rule's version changes THEN the page needs its
    units again, and the sweep stores them under the new mark (unchanged units keep their rows)."""
    from config.numbers import ANSWER_UNITS_RULES_VERSION
    from search.indexing import unit_vectors
    from search.services import index_sweep

    page = card["page"]
    model = local_embedder().model_name
    assert not unit_vectors.pages_needing_units(model).filter(pk=page.pk).exists()
    kept = set(UnitVector.objects.filter(chunk__page=page).values_list("id", flat=True))
    monkeypatch.setattr(unit_vectors, "RULES_VERSION", ANSWER_UNITS_RULES_VERSION + 1)
    assert unit_vectors.pages_needing_units(model).filter(pk=page.pk).exists()
    index_sweep()
    mark = IndexState.objects.get(page=page).units_model
    assert mark == units_mark(model) != f"{model}#units-v{ANSWER_UNITS_RULES_VERSION}"
    assert set(UnitVector.objects.filter(chunk__page=page).values_list("id", flat=True)) == kept
