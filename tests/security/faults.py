"""Fault injection with real processes: a killed worker, a killed Redis, racing edits.

After each fault the system is left to heal (restart, sweep) and then checked:
every published page's chunks must match its published revision exactly, with
vectors of the serving model, and no edit may be lost.
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field


def inconsistent_pages() -> list[int]:
    """Published pages whose index does not match their published revision (plus leftovers)."""
    from handbook.models import Page
    from search.embedding.model_switch import serving_model
    from search.indexing.chunking import chunk_markdown
    from search.models import Chunk

    model = serving_model()
    bad = []
    for page in Page.objects.published():
        expected = sorted(d.content_hash for d in chunk_markdown(page.body))
        chunks = list(Chunk.objects.filter(page=page).only("content_hash", "revision_id", "embedding_model"))
        if sorted(c.content_hash for c in chunks) != expected or any(
            c.revision_id != page.published_revision_id or (model and c.embedding_model != model) for c in chunks
        ):
            bad.append(page.pk)
    gone = Page.objects.exclude(pk__in=Page.objects.published()).filter(chunks__isnull=False).distinct()
    return bad + list(gone.values_list("pk", flat=True))


def wait_idle(timeout: float) -> list[int]:
    """Sweep and wait until the index is consistent; returns what is still inconsistent."""
    from search.services import index_sweep

    deadline = time.monotonic() + timeout
    last_sweep = 0.0
    while time.monotonic() < deadline:
        bad = inconsistent_pages()
        if not bad:
            return []
        if time.monotonic() - last_sweep > 10:
            index_sweep()
            last_sweep = time.monotonic()
        time.sleep(0.5)
    return inconsistent_pages()


def make_pages(space, count: int, seed: int, size: int = 3):  # type: ignore[no-untyped-def]
    from handbook.services import page_create

    rng = random.Random(seed)
    pages = []
    for i in range(count):
        body = "\n\n".join(
            f"## Section {j}\n\nRule {i}.{j}: {rng.choice(['expenses', 'leave', 'laptops', 'travel'])} "
            f"requests need {rng.randint(1, 9)} approvals within {rng.randint(2, 30)} days."
            for j in range(size)
        )
        pages.append(page_create(space=space, title=f"Policy {seed}-{i}", body=body))
    return pages


@dataclass
class KillReport:
    tasks: int
    kills: int
    inconsistent: list[int] = field(default_factory=list)


def kill_worker_during_reindex(worker, pages, *, kills: int, seed: int, heal_timeout: float) -> KillReport:  # type: ignore[no-untyped-def]
    """Enqueue a reindex of every page, SIGKILL the worker at random moments, restart, sweep, check."""
    from search.tasks import reindex_page

    rng = random.Random(seed)
    for page in pages:
        reindex_page.delay(page.pk, page.published_revision_id)
    for _ in range(kills):
        time.sleep(rng.uniform(0.5, 3.0))
        worker.kill()
        worker.start()
    return KillReport(len(pages), kills, wait_idle(heal_timeout))


@dataclass
class RaceReport:
    saves: int
    revisions_written: int
    lost_edits: int
    inconsistent: list[int] = field(default_factory=list)
    conflicts: int = 0  # saves refused as conflicts and retried by the "editor"


def race_edits(pages, *, edits: int, threads: int, seed: int, heal_timeout: float) -> RaceReport:  # type: ignore[no-untyped-def]
    """Concurrent publishes of the same pages from several threads while the worker reindexes."""
    from django.db import connection

    from handbook.models import Revision
    from handbook.services import EditConflict, page_save

    rng = random.Random(seed)
    conflicts: list[str] = []
    plan = [(rng.choice(pages).pk, f"edit {seed}-{n}") for n in range(edits)]
    before = Revision.objects.count()
    lock = threading.Lock()
    done: list[str] = []

    def run(items) -> None:  # type: ignore[no-untyped-def]
        from handbook.models import Page

        try:
            for page_id, marker in items:
                # As the editor does: save against the revision read; on a conflict, re-read and re-apply.
                while True:
                    page = Page.objects.get(pk=page_id)
                    latest = page.revisions.order_by("-number").first()  # text and number from one row
                    try:
                        page_save(
                            page=page,
                            title=latest.title,
                            body=latest.body + f"\n\n{marker} applies.\n",
                            base_number=latest.number,
                        )
                        break
                    except EditConflict:
                        with lock:
                            conflicts.append(marker)
                with lock:
                    done.append(marker)
        finally:
            connection.close()

    chunks = [plan[i::threads] for i in range(threads)]
    workers = [threading.Thread(target=run, args=(c,)) for c in chunks]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    written = Revision.objects.count() - before
    from handbook.models import Page

    bodies = " ".join(Page.objects.filter(pk__in=[p.pk for p in pages]).values_list("body", flat=True))
    lost = sum(1 for marker in done if f"{marker} applies." not in bodies)
    return RaceReport(len(done), written, lost, wait_idle(heal_timeout), conflicts=len(conflicts))
