"""Ingesting a large handbook end to end, against the embedder's own speed.

    python -m bench.ingestion --embedder endpoint [--every 1] [--workers 4] [--endpoint-concurrent 1]
    python -m bench.ingestion --embedder local [--every 20]

On a fresh database of the bench instance (``bench_ingest_<embedder>``), in one run:

1. **raw**: the embedder alone on every text the ingestion will embed (each chunk's passage,
   then each answer unit), in the slices the pipeline uses (batch size x concurrency);
2. **ingestion**: real Celery workers (``-Q interactive,bulk``) and
   ``manage.py load_corpus FILE --wait`` in its own process, timed from start to the
   moment every page has its chunk vectors and answer units ("indexed"), and to the end of
   ``--wait`` (summaries included).

The ratio asked for is ingestion texts/s over raw texts/s (the same texts). With
``--embedder endpoint`` the embedder is ``bench/embedding_endpoint.py`` (50 ms a request,
``--endpoint-inputs`` inputs a request, ``--endpoint-concurrent`` requests at once), and the
throughput is also given against that endpoint's limit. Peak memory (VmHWM) of every process
is reported. The corpus is ``gitlab-handbook`` from ``../shared/corpora``; ``--every N`` keeps
one page in N (the local model embeds ~10 chunks/s on two cores: the whole corpus would take
hours).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit
from urllib.request import urlopen

if __package__ != "bench":
    raise SystemExit("run as: python -m bench.ingestion ...")

from bench import common  # noqa: E402
from bench.indexing import _children, _vm_hwm_mb  # noqa: E402

SPACE = "gitlab-handbook"


def _fresh_database(name: str) -> None:
    """Drop the run's database: it is created again, empty, by ``common.setup``."""
    import psycopg
    from psycopg import sql

    admin = urlunsplit(urlsplit(common.database_url())._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def _subset(every: int) -> tuple[Path, list[dict[str, Any]]]:
    source = common.SHARED / "corpora" / f"{SPACE}.jsonl"
    items = [json.loads(line) for n, line in enumerate(source.open()) if line.strip() and n % every == 0]
    common.RESULTS.mkdir(parents=True, exist_ok=True)
    path = common.RESULTS / f"ingestion-{SPACE}-every{every}.jsonl"
    path.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items))
    return path, items


def _texts(items: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """What the pipeline embeds: each chunk's passage, then each chunk's distinct answer units."""
    from search.indexing.chunking import chunk_markdown
    from search.indexing.pipeline import passage_text
    from statements.answer_units import chunk_units, page_units

    passages: list[str] = []
    units: list[str] = []
    for item in items:
        whole = page_units(item["body"])
        for draft in chunk_markdown(item["body"]):
            passages.append(passage_text(draft.heading, draft.text))
            units.extend(dict.fromkeys(u.text for u in chunk_units(whole, draft.anchor, draft.heading, draft.text)))
    return passages, units


def _raw(passages: list[str], units: list[str]) -> dict[str, Any]:

    from search.embedding.embedders import bulk_slices, get_embedder

    embedder = get_embedder()
    assert embedder is not None
    embedder.embed_passages(["warm-up: load the model, open the connection"])
    started = time.perf_counter()
    for texts in (passages, units):
        for batch in bulk_slices(embedder, texts):
            embedder.embed_passages(batch)  # type: ignore[arg-type] - a slice of a list
    seconds = time.perf_counter() - started
    count = len(passages) + len(units)
    return {"texts": count, "seconds": seconds, "texts_per_s": count / seconds}


def _progress() -> tuple[int, int, int]:
    """Pages of the space (keyword-indexed, with every chunk vector, with their answer units too)."""
    from search.models import IndexState

    states = IndexState.objects.filter(page__space__slug=SPACE)
    indexed = states.filter(status=IndexState.Status.INDEXED)
    return states.exclude(revision=None).count(), indexed.count(), indexed.exclude(units_model="").count()


def _ingest(path: Path, page_count: int, workers: int, env: dict[str, str]) -> dict[str, Any]:
    from config.celery import app

    app.control.purge()
    log = open(common.RESULTS / "ingestion-worker.log", "wb")  # noqa: SIM115 - closed below
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", "interactive,bulk",
               "--loglevel=WARNING", f"--concurrency={workers}", "--pool=prefork", "--without-gossip",
               "--without-mingle", "-n", f"ingest-{os.getpid()}@%h"]  # fmt: skip
    worker = subprocess.Popen(
        command, cwd=common.ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    hwm: dict[int, float] = {}
    try:
        deadline = time.monotonic() + 90
        while not app.control.ping(timeout=0.5):
            if worker.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"worker did not start; see {log.name}")
        started = time.perf_counter()
        loader = subprocess.Popen(
            [sys.executable, "manage.py", "load_corpus", str(path), "--space", SPACE, "--wait", "--timeout", "14400",
             "--verbosity", "0"],  # fmt: skip
            cwd=common.ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        )  # fmt: skip
        marks: dict[str, float] = {}
        loader_mb = 0.0
        while True:
            finished = loader.poll() is not None
            words, vectors, units = _progress()
            now = time.perf_counter() - started
            if words >= page_count:
                marks.setdefault("keyword", now)
            if vectors >= page_count:
                marks.setdefault("vectors", now)
            if units >= page_count:
                marks.setdefault("indexed", now)
            for pid in [worker.pid, *_children(worker.pid)]:
                hwm[pid] = max(hwm.get(pid, 0.0), _vm_hwm_mb(pid) or 0.0)
            if not finished:  # read while it runs: once reaped, its /proc entry is gone
                loader_mb = max(loader_mb, _vm_hwm_mb(loader.pid) or 0.0)
            else:
                break
            time.sleep(0.5)
        waited = time.perf_counter() - started
        output = loader.stdout.read().decode() if loader.stdout else ""
        if loader.returncode != 0:
            raise SystemExit(f"load_corpus failed:\n{output}")
    finally:
        common.stop_process_groups(worker)
        log.close()
    return {
        "marks": marks,
        "wait_seconds": waited,
        "loader_peak_mb": loader_mb,
        "worker_peak_mb": hwm,
        "worker_pid": worker.pid,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ingestion", description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedder", choices=("local", "endpoint"), required=True)
    parser.add_argument("--every", type=int, default=0, help="one page in N (default: 1 endpoint, 20 local)")
    parser.add_argument("--workers", type=int, default=0, help="worker processes (default: 4 endpoint, 1 local)")
    parser.add_argument("--endpoint-latency", type=float, default=0.05)
    parser.add_argument("--endpoint-inputs", type=int, default=32)
    parser.add_argument("--endpoint-concurrent", type=int, default=1)
    args = parser.parse_args(argv)
    every = args.every or (1 if args.embedder == "endpoint" else 20)
    # Endpoint: more processes than cores, so one's CPU work overlaps the others' waits on requests.
    workers = args.workers or (4 if args.embedder == "endpoint" else 1)
    database = f"bench_ingest_{args.embedder}"
    _fresh_database(database)
    endpoint = None
    if args.embedder == "endpoint":
        endpoint = subprocess.Popen(
            [sys.executable, "-m", "bench.embedding_endpoint", "--latency", str(args.endpoint_latency),
             "--max-inputs", str(args.endpoint_inputs), "--max-concurrent", str(args.endpoint_concurrent)],
            cwd=common.ROOT, stdout=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
        port = int(endpoint.stdout.readline().split()[-1])  # type: ignore[union-attr]
        # Every process of this run sends at most the endpoint's concurrency in all.
        per_process = max(1, args.endpoint_concurrent // workers)
        os.environ.update(
            EMBEDDINGS_BASE_URL=f"http://127.0.0.1:{port}/v1",
            EMBEDDINGS_MODEL="bench-endpoint-embed",
            EMBEDDINGS_DIMENSIONS="384",
            EMBEDDINGS_BATCH_SIZE=str(args.endpoint_inputs),
            EMBEDDINGS_CONCURRENCY=str(per_process),
            BENCH_KEEP_ENV="1",
        )
        os.environ.pop("LLM_BASE_URL", None)
    try:
        common.setup(database)
        from django.conf import settings

        if args.embedder == "endpoint":  # the raw pass, like one worker, may use all the endpoint's slots
            settings.EMBEDDINGS_CONCURRENCY = args.endpoint_concurrent
        path, items = _subset(every)
        passages, units = _texts(items)
        print(
            f"{SPACE} (one page in {every}): {len(items)} pages, {len(passages)} chunks, {len(units)} units", flush=True
        )
        raw = _raw(passages, units)
        print(f"  raw: {raw['texts_per_s']:.1f} texts/s", flush=True)
        ingest = _ingest(path, len(items), workers, dict(os.environ, CELERY_TASK_ALWAYS_EAGER="false"))
        stats = {}
        if endpoint is not None:
            with urlopen(os.environ["EMBEDDINGS_BASE_URL"].removesuffix("/v1") + "/stats") as reply:  # noqa: S310 - loopback
                stats = json.loads(reply.read())
        endpoint_mb = _vm_hwm_mb(endpoint.pid) if endpoint else None
    finally:
        if endpoint is not None:
            common.stop_process_groups(endpoint)
    _report(args, every, workers, items, passages, units, raw, ingest, stats, endpoint_mb)


def _report(args, every, workers, items, passages, units, raw, ingest, stats, endpoint_mb) -> None:  # type: ignore[no-untyped-def]
    texts = len(passages) + len(units)
    marks = ingest["marks"]
    indexed = marks.get("indexed", ingest["wait_seconds"])
    rate = texts / indexed
    rows = [
        ("embedder alone (raw)", texts, raw["seconds"], raw["texts_per_s"], 1.0),
        ("ingestion, until every page has vectors and units", texts, indexed, rate, rate / raw["texts_per_s"]),
        ("ingestion, until load_corpus --wait returns (summaries too)", texts, ingest["wait_seconds"],
         texts / ingest["wait_seconds"], texts / ingest["wait_seconds"] / raw["texts_per_s"]),
    ]  # fmt: skip
    note = (
        f"{len(items)} pages, {len(passages)} chunks + {len(units)} answer units; {workers} worker process(es). "
        f"Every page keyword-searchable after {marks.get('keyword', float('nan')):.1f} s; every chunk vector after "
        f"{marks.get('vectors', float('nan')):.1f} s."
    )
    limit = None
    if args.embedder == "endpoint":
        limit = args.endpoint_concurrent * args.endpoint_inputs / max(args.endpoint_latency, 1e-9)
        note += (
            f" Endpoint: {args.endpoint_latency * 1000:.0f} ms a request, {args.endpoint_inputs} inputs a request, "
            f"{args.endpoint_concurrent} at once (more wait their turn): limit {limit:.0f} inputs/s. "
            f"Ingestion / limit: {rate / limit:.2f}; "
            f"raw / limit: {raw['texts_per_s'] / limit:.2f}. Endpoint counters: {stats}."
        )
    common.section(
        f"Ingestion of {SPACE} with the {args.embedder} embedder (goal: >= 0.9 of raw; endpoint >= 0.8 of its limit)",
        note=note,
        table=common.md_table(("path", "texts", "seconds", "texts/s", "ratio to raw"), rows, digits=2),
    )
    mem = [("bench process (raw pass)", common.peak_rss_mb()), ("load_corpus --wait", ingest["loader_peak_mb"])]
    for pid, mb in sorted(ingest["worker_peak_mb"].items()):
        mem.append(("worker parent" if pid == ingest["worker_pid"] else f"worker child {pid}", mb))
    if endpoint_mb is not None:
        mem.append(("embedding endpoint", endpoint_mb))
    common.section("Peak memory (VmHWM)", common.md_table(("process", "MB"), mem, digits=0))
    common.write_results(
        f"ingestion-{args.embedder}",
        {"every": every, "workers": workers, "pages": len(items), "chunks": len(passages), "units": len(units),
         "raw": raw, "ingest": ingest, "endpoint_limit": limit, "endpoint_stats": stats},
    )  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
