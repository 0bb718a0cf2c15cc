"""Indexing throughput and memory, on etalab-guides.

    python -m bench.indexing [--corpus etalab-guides] [--no-worker]

1. the embedder alone on the corpus's chunk texts (what ``page_reindex`` sends it),
   in batches of ``EMBEDDINGS_BATCH_SIZE``;
2. the whole pipeline, ``search.indexing.pipeline.page_reindex``, in this process: each
   page's chunks are deleted first, so it re-chunks, writes rows and tsvectors,
   embeds every chunk and writes the vectors (goal: >= 0.8 of the raw rate);
3. a real Celery worker (prefork, concurrency 1) doing the same from the queue:
   wall time until every page is indexed again, and the peak memory (VmHWM) of
   its parent and pool child.

Peak RSS of this process comes from ``resource.getrusage``. Pages end as they
started (indexed, same text and vectors); a page interrupted mid-way is left
marked pending, so the next load or sweep heals it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

if __package__ != "bench":  # `python bench/indexing.py` would shadow the `search` app with bench/search.py
    raise SystemExit("run as: python -m bench.indexing ...")

from bench import common  # noqa: E402


def _vm_hwm_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _reset_pages(pages: list[Any]) -> None:
    """Drop the pages' chunks and mark them pending: the next reindex does the whole pipeline."""
    from search.models import Chunk, IndexState

    for page in pages:
        IndexState.objects.filter(page=page).update(status=IndexState.Status.PENDING)
        Chunk.objects.filter(page=page).delete()


def raw_embedder(texts: list[str]) -> dict[str, Any]:
    from django.conf import settings

    from search.embedding.embedders import get_embedder

    embedder = get_embedder()
    assert embedder is not None
    batch = settings.EMBEDDINGS_BATCH_SIZE
    started = time.perf_counter()
    for start in range(0, len(texts), batch):
        embedder.embed_passages(texts[start : start + batch])
    seconds = time.perf_counter() - started
    return {"chunks": len(texts), "seconds": seconds, "chunks_per_s": len(texts) / seconds, "batch_size": batch}


def raw_embedder_per_page(texts_by_page: list[list[str]]) -> dict[str, Any]:
    """The embedder alone, one call per page: the batches page_reindex makes (pages under the batch size)."""
    from django.conf import settings

    from search.embedding.embedders import get_embedder

    embedder = get_embedder()
    assert embedder is not None
    batch = settings.EMBEDDINGS_BATCH_SIZE
    started = time.perf_counter()
    count = 0
    for texts in texts_by_page:
        for start in range(0, len(texts), batch):
            embedder.embed_passages(texts[start : start + batch])
        count += len(texts)
    seconds = time.perf_counter() - started
    return {"chunks": count, "seconds": seconds, "chunks_per_s": count / seconds}


def pipeline_inline(pages: list[Any]) -> dict[str, Any]:
    """page_reindex page by page; the time spent inside the embedder is measured apart."""
    from search.embedding.embedders import get_embedder
    from search.indexing.pipeline import page_reindex

    embedder = get_embedder()
    assert embedder is not None
    inner = embedder.embed_passages
    embed_seconds, batches = 0.0, []

    def timed(texts: list[str]) -> list[list[float]]:
        nonlocal embed_seconds
        started = time.perf_counter()
        try:
            return inner(texts)
        finally:
            embed_seconds += time.perf_counter() - started
            batches.append(len(texts))

    embedder.embed_passages = timed  # type: ignore[method-assign]  # this instance, for this run only
    chunks = embedded = 0
    seconds = 0.0
    try:
        for page in pages:
            _reset_pages([page])
            started = time.perf_counter()
            result = page_reindex(page_id=page.pk, revision_id=page.published_revision_id)
            seconds += time.perf_counter() - started
            if result.status != "indexed":
                raise SystemExit(f"page {page.pk}: reindex ended {result.status!r}")
            chunks += result.chunks
            embedded += result.embedded
    finally:
        del embedder.embed_passages  # back to the class's method
    return {
        "pages": len(pages),
        "chunks": chunks,
        "embedded": embedded,
        "seconds": seconds,
        "chunks_per_s": embedded / seconds,
        "embed_seconds": embed_seconds,
        "embed_batches": len(batches),
        "mean_batch": sum(batches) / max(1, len(batches)),
        "other_seconds": seconds - embed_seconds,
    }


def pipeline_worker(pages: list[Any], timeout: float = 1800) -> dict[str, Any]:
    """A real worker process, from the Redis queue; its peak memory from /proc."""
    from config.celery import app
    from core.queues import workers_available
    from search.indexing.pipeline import pages_needing_index
    from search.models import Chunk
    from search.tasks import reindex_page

    if workers_available():
        return {"skipped": "another worker is already consuming the bench queue"}
    app.control.purge()  # tasks queued by earlier loads (indexed inline since) must not run now
    log = open(common.RESULTS / "indexing-worker.log", "wb")  # noqa: SIM115 - closed below
    worker = common.start_celery_worker(f"bench-{os.getpid()}@%h", log)
    try:
        deadline = time.monotonic() + 90
        while not app.control.ping(timeout=0.5):
            if worker.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"worker did not start; see {log.name}")
        _reset_pages(pages)
        ids = [p.pk for p in pages]
        started = time.perf_counter()
        for page in pages:
            reindex_page.delay(page.pk, page.published_revision_id)
        while pages_needing_index().filter(id__in=ids).exists():
            if time.perf_counter() - started > timeout or worker.poll() is not None:
                raise SystemExit(f"worker did not finish indexing; see {log.name}")
            time.sleep(0.25)
        seconds = time.perf_counter() - started
        chunks = Chunk.objects.filter(page_id__in=ids, embedding__isnull=False).count()
        children = _children(worker.pid)
        memory = {
            "parent_vmhwm_mb": _vm_hwm_mb(worker.pid),
            "pool_children_vmhwm_mb": [_vm_hwm_mb(c) for c in children],
        }
    finally:
        common.stop_process_groups(worker)
        log.close()
    return {
        "pages": len(pages),
        "chunks": chunks,
        "seconds": seconds,
        "chunks_per_s": chunks / seconds,
        **memory,
        "note": "wall time from enqueue to all pages indexed (summaries run in the same worker)",
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.indexing", description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default="etalab-guides")
    parser.add_argument("--no-worker", action="store_true", help="skip the real-worker run")
    parser.add_argument("--pages", type=int, default=0, help="only the first N pages (a quick check)")
    args = parser.parse_args(argv)
    common.setup()
    common.RESULTS.mkdir(parents=True, exist_ok=True)
    common.ensure_corpora((args.corpus,))

    from handbook.models import Page
    from search.embedding.embedders import get_embedder
    from search.indexing.pipeline import passage_text
    from search.models import Chunk

    rss_start = common.peak_rss_mb()
    pages = list(Page.objects.published().filter(space__slug=args.corpus).order_by("id"))
    if args.pages:
        pages = pages[: args.pages]
    rows_by_page: dict[int, list[str]] = {}
    for page_id, h, t in (
        Chunk.objects.filter(page__in=pages).order_by("page_id", "ordinal").values_list("page_id", "heading", "text")
    ):
        rows_by_page.setdefault(page_id, []).append(passage_text(h, t))
    texts = [text for page_texts in rows_by_page.values() for text in page_texts]
    embedder = get_embedder()
    assert embedder is not None
    embedder.embed_passages(["warm-up: load the model before timing"])
    rss_model = common.peak_rss_mb()
    print(f"{args.corpus}: {len(pages)} pages, {len(texts)} chunks", flush=True)

    raw = raw_embedder(texts)
    print(f"  embedder alone: {raw['chunks_per_s']:.2f} chunks/s", flush=True)
    per_page = raw_embedder_per_page(list(rows_by_page.values()))
    print(f"  embedder alone, per page: {per_page['chunks_per_s']:.2f} chunks/s", flush=True)
    inline = pipeline_inline(pages)
    print(f"  page_reindex:   {inline['chunks_per_s']:.2f} chunks/s", flush=True)
    rss_end = common.peak_rss_mb()
    worker = {"skipped": "--no-worker"} if args.no_worker else pipeline_worker(pages)

    inside = inline["embedded"] / inline["embed_seconds"] if inline["embed_seconds"] else float("nan")
    rows = [
        ("embedder alone (embed_passages)", raw["chunks"], raw["seconds"], raw["chunks_per_s"], 1.0),
        (
            "embedder alone, one call per page (page_reindex's batches)",
            per_page["chunks"],
            per_page["seconds"],
            per_page["chunks_per_s"],
            per_page["chunks_per_s"] / raw["chunks_per_s"],
        ),
        (
            f"  the embedder inside page_reindex (mean batch {inline['mean_batch']:.1f})",
            inline["embedded"],
            inline["embed_seconds"],
            inside,
            inside / raw["chunks_per_s"],
        ),
        (
            "page_reindex, this process",
            inline["embedded"],
            inline["seconds"],
            inline["chunks_per_s"],
            inline["chunks_per_s"] / raw["chunks_per_s"],
        ),
    ]
    if "skipped" not in worker:
        rows.append(
            (
                "real Celery worker (prefork, 1), from the queue",
                worker["chunks"],
                worker["seconds"],
                worker["chunks_per_s"],
                worker["chunks_per_s"] / raw["chunks_per_s"],
            )
        )
    common.section(
        f"Indexing throughput on {args.corpus} (goal: pipeline >= 0.8 of raw)",
        note=f"raw batches: {raw['batch_size']} texts; page_reindex spent {inline['other_seconds']:.1f} s outside "
        "the embedder (chunking, rows, tsvectors, vector writes).",
        table=common.md_table(("path", "chunks", "seconds", "chunks/s", "ratio to raw"), rows, digits=2),
    )
    mem_rows = [
        ("bench process before the model", rss_start),
        ("bench process after loading the model", rss_model),
        ("bench process at the end (raw + pipeline)", rss_end),
    ]
    if "skipped" not in worker:
        mem_rows.append(("worker parent (VmHWM)", worker["parent_vmhwm_mb"] or float("nan")))
        for i, mb in enumerate(worker["pool_children_vmhwm_mb"]):
            mem_rows.append((f"worker pool child {i + 1} (VmHWM)", mb or float("nan")))
    else:
        print(f"\n(real worker skipped: {worker['skipped']})")
    common.section("Peak memory", common.md_table(("process", "peak RSS MB"), mem_rows, digits=0))
    common.write_results(
        "indexing",
        {
            "corpus": args.corpus,
            "raw": raw,
            "raw_per_page": per_page,
            "inline": inline,
            "worker": worker,
            "peak_rss_mb": {"start": rss_start, "after_model": rss_model, "end": rss_end},
        },
    )


if __name__ == "__main__":
    main(sys.argv[1:])
