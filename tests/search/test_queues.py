"""Which Celery queue each enqueue path uses (core/queues.py).

Tasks are sent to the test Redis for real (not run eagerly) and read back from the queues'
lists: the routing under test is Celery's own (``task_routes``, ``queue=``), not a stand-in.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from core.queues import BULK, INTERACTIVE, QUEUES, bulk_work

Held = Callable[[], dict[str, Counter[str]]]


@pytest.fixture
def queued() -> Iterator[Held]:
    """Send tasks to the broker; the function returns the task names each queue holds."""
    from config.celery import app

    app.conf.task_always_eager = False  # the autouse _celery_eager fixture switches it back
    with app.connection_for_write() as connection:
        client = connection.default_channel.client
        client.delete(*QUEUES)

        def held() -> dict[str, Counter[str]]:
            return {
                queue: Counter(json.loads(message)["headers"]["task"] for message in client.lrange(queue, 0, -1))
                for queue in QUEUES
            }

        yield held
        client.delete(*QUEUES)


REINDEX, SUMMARY = "search.tasks.reindex_page", "summaries.tasks.summarise_page"
REINDEX_GROUP = "search.tasks.reindex_pages"  # bulk reindexes: pages in groups (core.queues.enqueue_grouped)


def test_each_queue_has_its_own_exchange_and_key():
    """A queue declared without them is bound to the default exchange and key: a worker taking
    -Q bulk would then also receive every interactive task (seen in bench/queues.py)."""
    from config.celery import app

    queues = app.amqp.queues
    assert set(queues) == set(QUEUES)
    for name in QUEUES:
        assert (queues[name].exchange.name, queues[name].routing_key) == (name, name)


def test_an_editor_save_goes_to_the_interactive_queue(  # type: ignore[no-untyped-def]
    queued, make_space, no_embeddings, django_capture_on_commit_callbacks
):
    from handbook.services import page_create, page_save

    space = make_space("hr")
    with django_capture_on_commit_callbacks(execute=True):
        page = page_create(space=space, title="Leave", body="Twenty-five days.")
    with django_capture_on_commit_callbacks(execute=True):
        page_save(page=page, title="Leave", body="Twenty-six days.")
    # The reindex and the summary of each save, each on its own (handbook/page_work.py).
    assert queued() == {INTERACTIVE: Counter({REINDEX: 2, SUMMARY: 2}), BULK: Counter()}


def test_imports_go_to_the_bulk_queue(queued, make_space, no_embeddings, tmp_path, django_capture_on_commit_callbacks):  # type: ignore[no-untyped-def]
    from handbook.importing import corpus_import
    from handbook.services import page_create

    space = make_space("hr")
    lines = [{"id": f"doc-{n}", "title": f"Doc {n}", "body": f"Body {n}.", "lang": "en"} for n in range(3)]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(line) for line in lines))
    with django_capture_on_commit_callbacks(execute=True):
        report = corpus_import(corpus, space=space)
    assert report.created == 3
    # Committed after the import (this test's transaction), each page is sent alone.
    assert queued() == {INTERACTIVE: Counter(), BULK: Counter({REINDEX_GROUP: 3, SUMMARY: 3})}

    # Anything else that saves pages in bulk does so inside bulk_work().
    with django_capture_on_commit_callbacks(execute=True), bulk_work():
        page_create(space=space, title="Generated", body="x")
    assert queued()[BULK][REINDEX_GROUP] == queued()[BULK][SUMMARY] == 4


@pytest.mark.django_db(transaction=True)
def test_an_import_sends_its_pages_reindexes_in_groups(make_space, no_embeddings, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    """GIVEN an import of 20 pages, each committed as it is read
    THEN their reindexes go as two bulk tasks (16 pages, then the 4 left when the import ends), every
    page once. (What is sent is recorded at core.queues.enqueue: the session's live worker would
    consume messages from the broker while this test reads them.)"""
    import core.queues
    from core.queues import GROUP_SIZE
    from handbook.importing import corpus_import

    sent: list[tuple[str, tuple[object, ...], str | None]] = []
    monkeypatch.setattr(core.queues, "enqueue", lambda task, *args, queue=None: sent.append((task, args, queue)))
    space = make_space("hr")
    lines = [{"id": f"doc-{n}", "title": f"Doc {n}", "body": f"Body {n}.", "lang": "en"} for n in range(20)]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps(line) for line in lines))
    report = corpus_import(corpus, space=space)
    assert [(task, queue) for task, _args, queue in sent] == [(REINDEX_GROUP, BULK)] * 2
    groups = [args[0] for _task, args, _queue in sent]
    assert [len(group) for group in groups] == [GROUP_SIZE, 20 - GROUP_SIZE]  # type: ignore[arg-type]
    assert sorted(page_id for group in groups for page_id in group) == sorted(report.page_ids)  # type: ignore[attr-defined]


def test_reindex_all_sweeps_and_the_vocabulary_go_to_the_bulk_queue(queued, make_space, make_page, no_embeddings):  # type: ignore[no-untyped-def]
    from handbook.models import Page
    from search.services import index_enqueue_pages
    from search.tasks import refresh_lexicon, reindex_all, reindex_space, sweep_index, worker_heartbeat
    from summaries.tasks import regenerate_summary

    space = make_space("hr")
    make_page(space, "One", "First.", index=False)
    make_page(space, "Two", "Second.", index=False)
    queued()  # make_page's own enqueues were not committed: nothing is queued yet
    assert index_enqueue_pages(Page.objects.published()) == 2  # reindex --all, the sweep, admin actions
    for task in (reindex_all, sweep_index, refresh_lexicon):
        task.delay()
    reindex_space.delay(space.pk)
    regenerate_summary.delay(1)
    worker_heartbeat.delay()  # a task without a route: the default queue, interactive
    assert queued() == {
        INTERACTIVE: Counter({"search.tasks.worker_heartbeat": 1}),
        BULK: Counter(
            {
                REINDEX_GROUP: 1,  # both pages in one task
                "search.tasks.reindex_all": 1,
                "search.tasks.sweep_index": 1,
                "search.tasks.refresh_lexicon": 1,
                "search.tasks.reindex_space": 1,
                "summaries.tasks.regenerate_summary": 1,
            }
        ),
    }


@pytest.mark.parametrize("queue", [INTERACTIVE, BULK])
def test_a_page_change_queues_its_reindex_and_its_summary_on_the_same_queue(  # type: ignore[no-untyped-def]
    queue, queued, make_space, make_page, no_embeddings, django_capture_on_commit_callbacks
):
    """GIVEN a page change announced for one queue THEN its reindex and its summary both go there."""
    from handbook.page_work import page_changed

    page = make_page(make_space("hr"), "Leave", "Twenty-five days.", index=False)
    with django_capture_on_commit_callbacks(execute=True):
        page_changed(page, queue=queue)
    other = BULK if queue == INTERACTIVE else INTERACTIVE
    reindex = REINDEX if queue == INTERACTIVE else REINDEX_GROUP
    assert queued() == {queue: Counter({reindex: 1, SUMMARY: 1}), other: Counter()}


def test_a_reindex_queues_nothing_behind_it(queued, make_space, make_page, no_embeddings):  # type: ignore[no-untyped-def]
    """Summaries are not chained behind indexing: running a reindex queues no summary."""
    from search.tasks import reindex_page

    page = make_page(make_space("hr"), "Leave", "Twenty-five days.", index=False)
    result = reindex_page.apply((page.pk, page.published_revision_id), routing_key=BULK)
    assert result.get() in ("indexed", "pending")
    assert queued() == {INTERACTIVE: Counter(), BULK: Counter()}


def test_a_reindex_with_embeddings_queues_only_its_answer_units_on_the_bulk_queue(queued, make_space, make_page):  # type: ignore[no-untyped-def]
    """An editor's reindex runs on the interactive queue; the unit vectors it leaves behind only
    speed Ask up, so they wait on the bulk queue (no summary either)."""
    from search.tasks import reindex_page

    page = make_page(make_space("hr"), "Leave", "Staff get twenty-five days of leave.", index=False)
    result = reindex_page.apply((page.pk, page.published_revision_id), routing_key=INTERACTIVE)
    assert result.get() == "indexed"
    assert queued() == {INTERACTIVE: Counter(), BULK: Counter({"search.tasks.embed_units": 1})}
