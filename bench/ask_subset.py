"""A subset database for ``bench.ask``: every page the dev questions name, plus fixed distractors.

Indexing the three handbooks in full with the bundled model takes hours on two shared cores, so a
before/after comparison of Ask runs on a SUBSET: every page that a question of
``dev-handbooks.jsonl`` or ``dev-crosslang.jsonl`` names as relevant, plus pages of the same corpora
drawn at random (fixed seed) until ``--chars`` characters of page text. ``bench.no_policy`` makes
the same page choice (``chosen_pages``) and indexes it with the stand-in model; here the bundled
model indexes it. Figures from it are comparable between the code versions run on it, not with the full
corpora's.

The database is made once; ``--template`` copies another one first (the same pages and vectors for
an older checkout, which then only embeds the answer units its own rules cut differently). Tasks
enqueued meanwhile go to an in-memory broker: the bench Redis is shared with other benches.

    python -m bench.ask_subset --database bench_ask_after [--chars N] [--template DB]
    python -m bench.ask --database bench_ask_after --label after
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from typing import Any

from bench import common

SCOPE = "bench-handbooks"
FILES = ("dev-handbooks.jsonl", "dev-crosslang.jsonl")
SEED = 11
DEFAULT_CHARS = 750_000


def use_database(database: str, template: str | None = None) -> None:
    """Django on ``database`` of the bench server (made from ``template`` when it does not exist yet)."""
    if template:
        _create_from(template, database)
    url = common.database_url(database)
    for name in ("REDIS_URL", "LLM_BASE_URL", "EMBEDDINGS_BASE_URL"):
        os.environ.pop(name, None)  # the embedded services and the bundled model, whatever the shell says
    os.environ.update(DATABASE_URL=url, BENCH_KEEP_ENV="1")
    common.setup()
    from celery import current_app

    current_app.conf.update(broker_url="memory://")  # nothing reaches another bench's worker


def _create_from(template: str, database: str) -> None:
    import psycopg
    from psycopg import sql

    admin = common.database_url("postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone():
            return
        conn.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(sql.Identifier(database), sql.Identifier(template))
        )


def chosen_pages(limit_chars: int) -> dict[str, list[dict[str, Any]]]:
    """Per corpus: the relevant pages of the questions, then random distractors up to ``limit_chars``."""
    relevant = {ref for name in FILES for q in common.load_queries(name) for ref in q["relevant"]}
    lines = {corpus: common.read_jsonl(common.CORPORA / f"{corpus}.jsonl") for corpus in common.SCOPES[SCOPE]}
    chosen = {corpus: [item for item in items if item["id"] in relevant] for corpus, items in lines.items()}
    used = sum(len(item["body"]) for items in chosen.values() for item in items)
    others = [(corpus, item) for corpus, items in lines.items() for item in items if item["id"] not in relevant]
    random.Random(SEED).shuffle(others)
    for corpus, item in others:
        if used + len(item["body"]) > limit_chars:
            continue
        chosen[corpus].append(item)
        used += len(item["body"])
    return chosen


def load(limit_chars: int, *, answer_units: bool = True) -> dict[str, Any]:
    """The subset imported, indexed and (``answer_units``) its answer units embedded, only what is
    missing; what it holds."""
    from django.contrib.auth.models import Group

    from core.queues import bulk_work
    from handbook.importing import ImportReport, import_item, parse_line
    from handbook.models import Page, Space
    from handbook.services import space_create
    from search.indexing.pipeline import pages_needing_index, pages_reindex
    from search.models import Chunk

    staff, scope = (Group.objects.get_or_create(name=name)[0] for name in ("staff", SCOPE))
    for corpus, items in chosen_pages(limit_chars).items():
        space = Space.objects.filter(slug=corpus).first()
        if space is None:
            space = space_create(slug=corpus, title=corpus, viewer_groups=[staff, scope], editor_groups=[])
        have = set(Page.objects.filter(space=space).values_list("ref", flat=True))
        report = ImportReport()
        with bulk_work():
            for item in items:
                if item["id"] not in have:
                    import_item(parse_line(json.dumps(item).encode()), space, report)
    todo = list(pages_needing_index().values_list("id", flat=True))
    started = time.monotonic()
    for start in range(0, len(todo), 16):
        pages_reindex(todo[start : start + 16])
        print(f"  indexed {min(start + 16, len(todo))}/{len(todo)} pages", flush=True)
    if todo:
        print(f"indexed {len(todo)} pages in {time.monotonic() - started:.0f} s", flush=True)
    if answer_units:
        common._store_answer_units(common.SCOPES[SCOPE])
    common.bench_user(SCOPE, [SCOPE])
    return {
        "pages": Page.objects.count(),
        "chunks": Chunk.objects.count(),
        "embedded": Chunk.objects.filter(embedding__isnull=False).count(),
        "chars": limit_chars,
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ask_subset", description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", required=True)
    parser.add_argument("--chars", type=int, default=DEFAULT_CHARS, help="page text loaded (relevant pages first)")
    parser.add_argument("--template", help="copy this database first, when --database does not exist yet")
    args = parser.parse_args()
    started = time.monotonic()
    use_database(args.database, args.template)
    print(json.dumps(load(args.chars)), f"({time.monotonic() - started:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
