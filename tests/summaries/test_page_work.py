"""Summaries react to page changes on their own: an embedding outage does not hold them up."""

from __future__ import annotations

import pytest
from celery.exceptions import Retry

from handbook.page_work import registered
from search.embedding.embedders import EmbeddingError
from search.models import IndexState
from summaries.models import Summary

pytestmark = pytest.mark.django_db


class _DownEmbedder:
    model_name = "down"
    dimensions = 384
    parallel_requests = 1
    remote = False

    def embed_passages(self, texts):  # type: ignore[no-untyped-def]
        raise EmbeddingError("the embeddings provider is down")

    embed_queries = embed_passages


def test_indexing_and_summaries_are_registered_apart():
    assert [work.name for work in registered()] == ["index", "answer units", "summary"]


def test_a_summary_is_written_while_embeddings_are_down(make_space, monkeypatch, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    from handbook.services import page_create

    monkeypatch.setattr("search.indexing.pipeline.get_embedder", lambda: _DownEmbedder())
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        page = page_create(
            space=make_space("hr"), title="Annual leave", body="# Leave\n\nStaff get 25 days of paid leave a year.\n"
        )
    assert len(callbacks) == 2  # the reindex and the summary, queued apart
    failures = []
    for callback in callbacks:  # what the commit runs (tasks are eager in the tests)
        try:
            callback()
        except (EmbeddingError, Retry) as exc:  # the reindex task fails and asks to be retried
            failures.append(exc)
    state = IndexState.objects.get(page=page)
    assert failures or state.status != IndexState.Status.INDEXED  # indexing did not complete…
    summary = Summary.objects.get(page=page, status=Summary.Status.READY)  # …the summary did
    assert "25 days" in summary.text


def test_waiting_on_thousands_of_pages_checks_less_often_as_more_are_pending(monkeypatch):  # type: ignore[no-untyped-def]
    """Each check reads every pending page: with 3,000 pending the wait pauses 3 s, with 100 the usual 0.5 s."""
    from handbook import page_work

    left = iter([set(range(3000)), set(range(100)), set()])
    pauses: list[float] = []
    monkeypatch.setattr(page_work, "pending", lambda ids: next(left))
    monkeypatch.setattr(page_work.time, "sleep", pauses.append)
    assert page_work.wait_until_done(list(range(5000)), timeout=60) == []
    assert pauses == [3.0, 0.5]
