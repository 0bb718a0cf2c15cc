"""Indexing: chunks, search vectors and embeddings follow the published revision."""

from __future__ import annotations

import pytest

from handbook.services import page_save
from search.indexing.pipeline import page_reindex
from search.models import Chunk, IndexState

BODY = """# Annual leave

Every employee gets 25 days of paid leave per year.

## Carry over

Up to five unused days may be carried over to the next year.
"""


@pytest.mark.django_db
def test_publish_indexes_chunks_with_embeddings(make_space, make_page):
    page = make_page(make_space("people"), "Leave policy", BODY)
    chunks = list(Chunk.objects.filter(page=page).order_by("ordinal"))
    assert len(chunks) >= 2
    assert all(c.embedding is not None and len(c.embedding) == 384 for c in chunks)
    assert chunks[0].anchor == "annual-leave"
    assert IndexState.objects.get(page=page).status == "indexed"


@pytest.mark.django_db
def test_unchanged_resave_keeps_embeddings(make_space, make_page, django_capture_on_commit_callbacks):
    page = make_page(make_space("people"), "Leave policy", BODY)
    before = dict(Chunk.objects.filter(page=page).values_list("id", "embedded_at"))
    with django_capture_on_commit_callbacks(execute=True):
        page_save(page=page, title="Leave policy", body=BODY)
    result = page_reindex(page_id=page.pk, revision_id=page.published_revision_id)
    assert result.embedded == 0
    assert dict(Chunk.objects.filter(page=page).values_list("id", "embedded_at")) == before


@pytest.mark.django_db
def test_one_paragraph_edit_reembeds_only_its_chunk(make_space, make_page, django_capture_on_commit_callbacks):
    page = make_page(make_space("people"), "Leave policy", BODY)
    with django_capture_on_commit_callbacks(execute=False):
        page_save(page=page, title="Leave policy", body=BODY + "\nRequests go through the HR portal.\n")
    page.refresh_from_db()
    result = page_reindex(page_id=page.pk, revision_id=page.published_revision_id)
    assert result.embedded == 1
    assert result.reused >= 1


@pytest.mark.django_db
def test_stale_revision_is_ignored(make_space, make_page, django_capture_on_commit_callbacks):
    page = make_page(make_space("people"), "Leave policy", BODY)
    old_revision = page.published_revision_id
    with django_capture_on_commit_callbacks(execute=True):
        page_save(page=page, title="Leave policy", body="# Annual leave\n\nNow 27 days.\n")
    assert page_reindex(page_id=page.pk, revision_id=old_revision).status == "stale"
    assert "27 days" in " ".join(Chunk.objects.filter(page=page).values_list("text", flat=True))
