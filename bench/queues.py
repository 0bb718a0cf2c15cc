"""Editors during a bulk re-embed: how soon is an edited page searchable, per queue layout?

    python -m bench.queues [--bulk-pages 120] [--edits 20] [--layouts split,shared]
    python -m bench.queues --corpora 18f-handbook,etalab-guides   # the bulk work is those corpora

On its own database of the bench instance (``bench_queues``), with a corpus it writes
itself (``--bulk-pages`` pages of ~3 chunks each, plus one editor page), or with the pages of
real corpora (``--corpora``, read from ``../shared/corpora``) as the bulk work:

1. every bulk page's chunks are dropped and ``index_enqueue_pages`` queues them all on
   the bulk queue (what ``reindex --all`` does): a re-embed of everything;
2. while that runs, an editor publishes ``--edits`` changes to one page, each with a
   new word; for each, the time from commit until a keyword-only search finds the page
   by that word, and until the changed chunk has its embedding.

Layouts, each with two real worker processes (prefork, concurrency 1):
``split``: one worker ``-Q interactive`` and one ``-Q bulk`` (docker-compose's layout);
``split-nice``: the same, the bulk worker started under ``nice -n 19`` (workers sharing a host);
``shared``: two workers that both take both queues (no dedicated interactive worker).
Goal (issue #22): keyword-searchable within 2 s p95, re-embedded within 10 s p95.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time
from typing import Any

if __package__ != "bench":  # `python bench/queues.py` would shadow the `search` app with bench/search.py
    raise SystemExit("run as: python -m bench.queues ...")

from bench import common  # noqa: E402

DATABASE = "bench_queues"
GROUP = "bench-queues"
LAYOUTS: dict[str, list[tuple[str, int]]] = {  # (-Q, nice level) of each of the two workers
    "split": [("interactive", 0), ("bulk", 0)],
    # The bulk worker at the lowest CPU priority: on a shared host the editors' work takes the cores first.
    "split-nice": [("interactive", 0), ("bulk", 19)],
    "shared": [("interactive,bulk", 0), ("interactive,bulk", 0)],
}
WORDS = (  # noqa: SIM905 - a sentence of words reads better than 23 quoted ones
    "leave travel expense laptop security badge meeting budget policy onboarding holiday training "
    "contract invoice payroll office network password printer parking canteen insurance pension"
).split()


def _paragraph(rng: random.Random, words: int = 130) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def _body(rng: random.Random, title: str, sections: int = 3) -> str:
    parts = [f"# {title}"]
    for n in range(sections):
        parts.append(f"## Part {n + 1}\n\n{_paragraph(rng)}")
    return "\n\n".join(parts) + "\n"


def make_corpus(bulk_pages: int) -> tuple[Any, list[Any], Any]:
    """(reader, bulk pages, editor page), created once; indexing is left to the workers."""
    from django.contrib.auth.models import Group

    from handbook.models import Page, Space
    from handbook.services import page_create, space_create

    group = Group.objects.get_or_create(name=GROUP)[0]
    reader = common.bench_user("bench-queues-reader", [GROUP])
    space = Space.objects.filter(slug="queues").first() or space_create(
        slug="queues", title="Queues", viewer_groups=[group], editor_groups=[group]
    )
    rng = random.Random(22)
    existing = Page.objects.filter(space=space).count()
    for n in range(existing, bulk_pages + 1):
        title = "Editor page" if n == 0 else f"Bulk page {n}"
        page_create(space=space, title=title, body=_body(rng, title))
    pages = list(Page.objects.published().filter(space=space).order_by("id"))
    return reader, pages[1 : bulk_pages + 1], pages[0]


def corpus_pages(corpora: list[str]) -> list[Any]:
    """The pages of these corpora (``../shared/corpora``), created once in a space of their own, not indexed."""
    from django.contrib.auth.models import Group

    from handbook.models import Page, Space
    from handbook.services import page_create, space_create

    group = Group.objects.get_or_create(name=GROUP)[0]
    slug = "queues-" + "-".join(corpora)
    space = Space.objects.filter(slug=slug).first() or space_create(
        slug=slug, title="Queues (corpora)", viewer_groups=[group], editor_groups=[group]
    )
    if not Page.objects.filter(space=space).exists():
        for corpus in corpora:
            path = common.CORPORA / f"{corpus}.jsonl"
            if not path.is_file():
                raise SystemExit(f"{path}: not found (set HANDBOOK_SHARED)")
            for row in common.read_jsonl(path):
                page_create(space=space, title=row["title"][:200] or row["id"], body=row["body"])
    return list(Page.objects.published().filter(space=space).order_by("id"))


def _start_workers(queues: list[tuple[str, int]]) -> list[subprocess.Popen[bytes]]:
    from config.celery import app

    workers = []
    for number, (queue, nice) in enumerate(queues):
        log = open(common.RESULTS / f"queues-worker-{number}.log", "wb")  # noqa: SIM115 - the worker's
        name = f"bench-queues-{number}-{os.getpid()}@%h"
        workers.append(common.start_celery_worker(name, log, "-Q", queue, nice=nice))
    deadline = time.monotonic() + 120
    while len(app.control.ping(timeout=1.0)) < len(workers):
        if time.monotonic() > deadline or any(w.poll() is not None for w in workers):
            common.stop_process_groups(*workers)
            raise SystemExit(f"workers did not start; see {common.RESULTS}/queues-worker-*.log")
    return workers


def _found_by_keyword(reader: Any, word: str, page_id: int) -> bool:
    from django.test import override_settings

    from search.selectors import search_pages

    # Keyword only: the query is not embedded here, so the check takes no core from the workers.
    with override_settings(EMBEDDINGS_ENABLED=False):
        result = search_pages(user=reader, query=word, with_summaries=False)
    return any(hit.page_id == page_id for hit in result.results)


def _embedded(page_id: int, word: str) -> bool:
    from search.models import Chunk

    return Chunk.objects.filter(page_id=page_id, text__contains=word, embedding__isnull=False).exists()


def _edit(editor_page: Any, word: str) -> None:
    from django.db import transaction

    from handbook.services import page_save

    body = editor_page.published_revision.body if editor_page.published_revision else ""
    with transaction.atomic():
        page_save(page=editor_page, title=editor_page.title, body=f"{body.rstrip()}\n\nNew rule: {word} applies.\n")
    editor_page.refresh_from_db()


def _wait(check: Any, timeout: float) -> float | None:
    started = time.perf_counter()
    while time.perf_counter() - started < timeout:
        if check():
            return time.perf_counter() - started
        time.sleep(0.1)
    return None


def run_layout(layout: str, reader: Any, bulk: list[Any], editor_page: Any, edits: int, gap: float) -> dict[str, Any]:
    from config.celery import app
    from search.indexing.pipeline import pages_needing_index
    from search.models import Chunk, IndexState
    from search.services import index_enqueue_pages

    app.control.purge()
    workers = _start_workers(LAYOUTS[layout])
    try:
        # Warm-up (not timed): each worker loads the model on its first task; three tasks for two
        # idle workers (prefetch 1) reach both.
        ids = [p.pk for p in bulk]
        warm = f"warmup{layout}{os.getpid()}"
        index_enqueue_pages(bulk[0].__class__.objects.filter(id__in=ids[:2]))
        _edit(editor_page, warm)
        _wait(lambda: _embedded(editor_page.pk, warm), 300)
        _wait(lambda: not pages_needing_index().filter(id__in=ids[:2]).exists(), 300)

        IndexState.objects.filter(page_id__in=ids).update(status=IndexState.Status.PENDING)
        Chunk.objects.filter(page_id__in=ids).delete()
        index_enqueue_pages(bulk[0].__class__.objects.filter(id__in=ids))
        bulk_started = time.perf_counter()
        keyword_s: list[float | None] = []
        embedded_s: list[float | None] = []
        pending_at_start = pages_needing_index().filter(id__in=ids).count()
        for n in range(edits):
            word = f"zq{layout}{n}x{os.getpid()}"
            _edit(editor_page, word)
            committed = time.perf_counter()
            keyword_s.append(_wait(lambda word=word: _found_by_keyword(reader, word, editor_page.pk), 60))
            done = _wait(lambda word=word: _embedded(editor_page.pk, word), 120)
            embedded_s.append(None if done is None else time.perf_counter() - committed)
            time.sleep(gap)
        pending_at_end = pages_needing_index().filter(id__in=ids).count()
        # A group of 16 pages keeps its vectors until the whole group is embedded: its words come first.
        words_at_end = Chunk.objects.filter(page_id__in=ids).values("page_id").distinct().count()
        edits_s = time.perf_counter() - bulk_started
    finally:
        common.stop_process_groups(*workers)
    found = [s for s in keyword_s if s is not None]
    embedded = [s for s in embedded_s if s is not None]
    return {
        "layout": layout,
        "workers": LAYOUTS[layout],
        "edits": edits,
        "keyword_p50_s": common.percentile(found, 50),
        "keyword_p95_s": common.percentile(found, 95),
        "keyword_missed": len(keyword_s) - len(found),
        "embedded_p50_s": common.percentile(embedded, 50),
        "embedded_p95_s": common.percentile(embedded, 95),
        "embedded_missed": len(embedded_s) - len(embedded),
        "bulk_pages": len(ids),
        "bulk_pending_at_first_edit": pending_at_start,
        "bulk_pending_after_last_edit": pending_at_end,
        "bulk_words_indexed_after_last_edit": words_at_end,
        "edit_phase_s": edits_s,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.queues", description=__doc__.split("\n\n")[0])
    parser.add_argument("--bulk-pages", type=int, default=120)
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--gap", type=float, default=0.5, help="seconds between an edit's results and the next")
    parser.add_argument("--layouts", default="split,split-nice,shared")
    parser.add_argument("--corpora", default="", help="bulk work: these corpora's pages (18f-handbook,etalab-guides)")
    args = parser.parse_args(argv)
    # SIGTERM (timeout, kill) unwinds like Ctrl-C, so the workers started below are stopped too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    common.setup(DATABASE)
    common.RESULTS.mkdir(parents=True, exist_ok=True)
    from core.queues import workers_available

    if workers_available():
        raise SystemExit("another worker is consuming this instance's queues: stop it first (make stop)")
    reader, bulk, editor_page = make_corpus(0 if args.corpora else args.bulk_pages)
    if args.corpora:
        bulk = corpus_pages([c.strip() for c in args.corpora.split(",") if c.strip()])
    print(f"bench.queues: {len(bulk)} bulk pages, {args.edits} edits per layout", flush=True)

    rows, results = [], []
    for layout in [name.strip() for name in args.layouts.split(",") if name.strip()]:
        result = run_layout(layout, reader, bulk, editor_page, args.edits, args.gap)
        results.append(result)
        rows.append(
            (
                layout,
                " + ".join(f"-Q {q}" + (f" (nice {n})" if n else "") for q, n in result["workers"]),
                result["keyword_p50_s"],
                result["keyword_p95_s"],
                result["embedded_p50_s"],
                result["embedded_p95_s"],
                f"{result['bulk_pending_at_first_edit']} → {result['bulk_pending_after_last_edit']}",
                result["bulk_words_indexed_after_last_edit"],
            )
        )
        print(f"  {layout}: {result}", flush=True)
    common.section(
        "Editors during a bulk re-embed",
        common.md_table(
            [
                "layout",
                "workers",
                "keyword p50 s",
                "keyword p95 s",
                "embedded p50 s",
                "embedded p95 s",
                "bulk pending",
                "bulk pages with words indexed",
            ],
            rows,
            digits=2,
        ),
        note="Goal: keyword-searchable within 2 s p95, re-embedded within 10 s p95. "
        "'bulk pending': bulk pages not yet indexed at the first edit → after the last (bulk ran throughout if > 0); "
        "'with words indexed': bulk pages keyword-searchable after the last edit (the bulk worker's progress).",
    )
    common.write_results("queues", {"layouts": results})


if __name__ == "__main__":
    main()
