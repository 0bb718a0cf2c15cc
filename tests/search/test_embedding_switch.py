"""Changing the embedding model: old vectors serve until the new set is complete."""

from __future__ import annotations

import pytest

from search.embedding.embedders import LOCAL_MODEL_NAME
from search.embedding.model_switch import serving_model
from search.indexing.pipeline import page_reindex
from search.models import Chunk
from search.retrieval.pipeline import retrieve


@pytest.mark.django_db
def test_switch_keeps_serving_old_vectors_until_complete(make_space, make_page, make_user, fake_llm, settings):
    space = make_space("it")
    vpn = make_page(space, "VPN", "# VPN\n\nConnect with WireGuard before opening internal tools.")
    leave = make_page(space, "Leave", "# Leave\n\nTwenty-five days of paid holidays each year.")
    bob = make_user("bob", "staff")
    assert serving_model() == LOCAL_MODEL_NAME
    old = dict(Chunk.objects.values_list("id", "embedding_model"))
    assert set(old.values()) == {LOCAL_MODEL_NAME}

    # GIVEN a new model is configured (an OpenAI-compatible endpoint)
    settings.EMBEDDINGS_BASE_URL = fake_llm.base_url
    settings.EMBEDDINGS_MODEL = "fake-embed"
    settings.EMBEDDINGS_DIMENSIONS = 384

    # WHEN only one page has been re-embedded
    page_reindex(page_id=vpn.pk, revision_id=vpn.published_revision_id)
    # THEN search still serves the old model's vectors, with the old query embedder
    assert serving_model() == LOCAL_MODEL_NAME
    assert dict(Chunk.objects.values_list("id", "embedding_model")) == old
    assert Chunk.objects.filter(page=vpn, next_embedding_model="fake-embed").count() == vpn.chunks.count()
    result = retrieve("paid holidays", bob)
    assert result.used_vectors and result.pages[0].page_id == leave.pk

    # WHEN the last page is done, the new vectors are swapped in at once
    page_reindex(page_id=leave.pk, revision_id=leave.published_revision_id)
    assert serving_model() == "fake-embed"
    assert set(Chunk.objects.values_list("embedding_model", flat=True)) == {"fake-embed"}
    assert not Chunk.objects.exclude(next_embedding_model="").exists()
    assert retrieve("WireGuard", bob).used_vectors
