"""The real worker: a separate Celery process consuming from the real Redis."""

from __future__ import annotations

import pytest

from handbook.services import page_save
from search.models import Chunk, IndexState
from search.tasks import reindex_page
from summaries.models import Summary
from tests.conftest import wait_for

BODY = (
    "# Remote work\n\nStaff may work from home up to three days a week.\n\n"
    "## Equipment\n\nA screen is lent on request.\n"
)

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _indexed(page) -> bool:  # type: ignore[no-untyped-def]
    page.refresh_from_db()
    state = IndexState.objects.filter(page=page).first()
    return bool(state and state.status == "indexed" and state.revision_id == page.published_revision_id)


def test_save_is_indexed_and_summarised_by_the_worker(worker, make_space, make_page):
    page = make_page(make_space("it"), "Remote work", BODY, index=False)
    reindex_page.delay(page.pk, page.published_revision_id)
    assert wait_for(lambda: _indexed(page), timeout=90)
    assert Chunk.objects.filter(page=page, embedding__isnull=False).count() == Chunk.objects.filter(page=page).count()
    assert wait_for(lambda: Summary.objects.filter(page=page, status="ready").exists(), timeout=60)


def test_edit_after_commit_reaches_the_worker(worker, make_space, make_page):
    page = make_page(make_space("it"), "Remote work", BODY, index=False)
    reindex_page.delay(page.pk, page.published_revision_id)
    assert wait_for(lambda: _indexed(page), timeout=90)
    before = dict(Chunk.objects.filter(page=page).values_list("content_hash", "embedded_at"))
    page_save(page=page, title="Remote work", body=BODY + "\n## Security\n\nUse the VPN at home.\n")
    assert wait_for(
        lambda: _indexed(page) and Chunk.objects.filter(page=page, text__contains="VPN").exists(), timeout=90
    )
    after = dict(Chunk.objects.filter(page=page).values_list("content_hash", "embedded_at"))
    unchanged = set(before) & set(after)
    assert unchanged, "untouched sections keep their chunks"
    assert all(before[h] == after[h] for h in unchanged), "untouched chunks were not re-embedded"


def test_worker_killed_mid_task_is_healed_after_restart(worker, make_space, make_page):
    # Vectors are written a batch (EMBEDDINGS_BATCH_SIZE, 32) at a time. The first batch is of short
    # sections, written within a second; the long sections after it take seconds to embed: the
    # kill lands between the two, and the restarted task only has those left to embed.
    short = [f"## Part {i}\n\nRequests of type {i} need {i % 5 + 1} approvals." for i in range(32)]
    long = [
        f"## Part {i}\n\n" + " ".join(f"Rule {i}.{j}: requests of type {i * j} need {j} approvals." for j in range(30))
        for i in range(32, 38)
    ]
    long_body = "\n\n".join(short + long)
    page = make_page(make_space("hr"), "Long page", long_body, index=False)
    reindex_page.delay(page.pk, page.published_revision_id)
    assert wait_for(
        lambda: Chunk.objects.filter(page=page, embedding__isnull=False).exists(), timeout=90, interval=0.05
    )
    worker.kill()
    assert Chunk.objects.filter(page=page, embedding__isnull=True).exists(), "killed before the end"
    assert not _indexed(page)
    worker.start()
    # acks_late + reject_on_worker_lost: the message goes back to the queue and runs again.
    assert wait_for(lambda: _indexed(page), timeout=240)
