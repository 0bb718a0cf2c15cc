"""Shared pieces of the benchmarks: the bench instance, corpora, users, metrics, tables.

Benchmarks are not tests. They run against their own embedded instance
(``HANDBOOK_DATA_DIR``, default ``var/bench``), read corpora and labelled
queries from ``../shared`` (``HANDBOOK_SHARED`` overrides) and write JSON under
``bench/results/`` (git-ignored).

Corpora are loaded once with ``manage.py load_corpus FILE --space SLUG
--viewer-group staff --viewer-group <scope> --wait``; the data dir persists, so
later runs reuse them. Each eval file is searched as a user who reads exactly
the corpora of that file (``bench-faq``: cnil-faq-fr + service-public-fr;
``bench-handbooks``: the three handbooks), i.e. "everything the user may
read", and each query is scored against its own corpus only (pages of other
corpora are simply not relevant).

    python -m bench.common load      # load every corpus the benches need (one-off)
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
SHARED = Path(os.environ.get("HANDBOOK_SHARED") or ROOT.parent / "shared")
CORPORA = SHARED / "corpora"
EVAL = SHARED / "eval"

# Which user searches which eval file; the group reads exactly those corpora.
SCOPES: dict[str, tuple[str, ...]] = {
    "bench-faq": ("cnil-faq-fr", "service-public-fr"),
    "bench-handbooks": ("18f-handbook", "etalab-guides", "betagouv-communaute"),
}
EVAL_FILES: dict[str, str] = {  # eval file -> scope (user and group of the same name)
    "dev.jsonl": "bench-faq",
    "dev-handbooks.jsonl": "bench-handbooks",
    "dev-crosslang.jsonl": "bench-handbooks",
}
ALL_CORPORA: tuple[str, ...] = tuple(c for corpora in SCOPES.values() for c in corpora)
K = 10


# --- the bench instance -------------------------------------------------------------


def _ensure_data_dir() -> None:
    os.environ.setdefault("HANDBOOK_DATA_DIR", str(ROOT / "var" / "bench"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")


def _use_embedded_services() -> None:
    """Benches measure the embedded instance and the local model, whatever the shell says."""
    for name in ("DATABASE_URL", "REDIS_URL", "LLM_BASE_URL", "EMBEDDINGS_BASE_URL"):
        if os.environ.get(name) and not os.environ.get("BENCH_KEEP_ENV"):
            print(f"note: ignoring {name} (BENCH_KEEP_ENV=1 keeps it)", file=sys.stderr)
            os.environ.pop(name)


def database_url(name: str | None = None) -> str:
    """URL of the bench Postgres (started if needed); ``name`` picks another database on it."""
    _ensure_data_dir()
    from core import embedded

    url = embedded.postgres_url()
    if not name:
        return url
    import psycopg
    from psycopg import sql

    parts = urlsplit(url)
    admin = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    query = urlencode(parse_qsl(parts.query))
    return urlunsplit(parts._replace(path="/" + name, query=query))


def setup(database: str | None = None, *, migrate: bool = True) -> None:
    """Configure Django for the bench instance (optionally another database on it)."""
    _ensure_data_dir()
    _use_embedded_services()
    if database:
        os.environ["DATABASE_URL"] = database_url(database)
        # Cached values derived from the index (language means, query results) must not leak between databases.
        os.environ["CACHE_KEY_PREFIX"] = f"handbook-{database}"
    import django

    from core import embedded

    embedded.use_if_unconfigured()  # settings only read the environment
    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)


def refresh_index_statistics() -> None:
    """Statistics the product keeps up to date while indexing (IDF lexeme counts), rebuilt for bulk-loaded data."""
    try:
        from search.statistics.term_statistics import refresh_lexeme_stats
    except ImportError:  # an index without lexeme statistics
        return
    started = time.monotonic()
    count = refresh_lexeme_stats()
    print(f"(lexeme statistics refreshed: {count} lexemes in {time.monotonic() - started:.1f} s)", flush=True)
    from django.core.cache import cache

    from search.retrieval.crosslang import means_cache_key

    cache.delete_many([means_cache_key(m) for m in _embedding_models()])
    try:
        from search.services import lexicon_build
    except ImportError:  # an index without word translation
        return
    started = time.monotonic()
    counts = lexicon_build()  # what the periodic sweep keeps up to date (only new words are embedded)
    print(f"(word-translation vocabulary: {counts} in {time.monotonic() - started:.1f} s)", flush=True)


def _embedding_models() -> list[str]:
    from search.models import Chunk

    return list(Chunk.objects.values_list("embedding_model", flat=True).distinct())


def manage(*args: str, quiet: bool = False) -> None:
    """Run ``manage.py`` in a child process with the bench environment."""
    command = [sys.executable, str(ROOT / "manage.py"), *args]
    print("$ manage.py " + " ".join(args), flush=True)
    subprocess.run(command, cwd=ROOT, check=True, env=dict(os.environ), stdout=subprocess.DEVNULL if quiet else None)


def bench_user(username: str, groups: Iterable[str] = (), *, superuser: bool = False):  # type: ignore[no-untyped-def]
    from django.contrib.auth.models import Group, User

    user, _created = User.objects.get_or_create(username=username, defaults={"is_staff": True})
    if user.is_superuser != superuser or not user.is_active:
        user.is_superuser, user.is_active = superuser, True
        user.save()
    for name in groups:
        user.groups.add(Group.objects.get_or_create(name=name)[0])
    return user


def corpus_lines(corpus: str) -> int:
    with open(CORPORA / f"{corpus}.jsonl", "rb") as handle:
        return sum(1 for line in handle if line.strip())


def corpus_ready(corpus: str) -> bool:
    """Every page of the corpus imported, indexed with vectors, in a space of that name."""
    from handbook.models import Page
    from search.indexing.pipeline import pages_needing_index

    pages = Page.objects.filter(space__slug=corpus)
    return pages.count() >= corpus_lines(corpus) and not pages_needing_index().filter(space__slug=corpus).exists()


def ensure_corpora(corpora: Sequence[str] = ALL_CORPORA) -> None:
    """Load the corpora once (idempotent), make the bench users and their scopes."""
    from django.contrib.auth.models import Group

    from handbook.models import Space

    missing = [c for c in corpora if not (CORPORA / f"{c}.jsonl").is_file()]
    if missing:
        raise SystemExit(f"corpora not found under {CORPORA}: {', '.join(missing)} (set HANDBOOK_SHARED)")
    for scope, scoped in SCOPES.items():
        for corpus in (c for c in scoped if c in corpora):
            if corpus_ready(corpus):
                continue
            started = time.monotonic()
            manage(
                "load_corpus",
                str(CORPORA / f"{corpus}.jsonl"),
                "--space",
                corpus,
                "--viewer-group",
                "staff",
                "--viewer-group",
                scope,
                "--wait",
                "--timeout",
                "14400",
            )
            print(f"loaded {corpus} in {time.monotonic() - started:.0f} s", flush=True)
    _store_answer_units(corpora)
    for scope, scoped in SCOPES.items():
        group = Group.objects.get_or_create(name=scope)[0]
        for space in Space.objects.filter(slug__in=scoped):
            space.viewer_groups.add(group, Group.objects.get_or_create(name="staff")[0])
        bench_user(scope, [scope])
    bench_user("bench", ["staff"])  # reads every corpus


def _store_answer_units(corpora: Sequence[str]) -> None:
    """Answer-unit vectors for corpora indexed before they were stored at index time (same code as the task)."""
    from tqdm import tqdm

    from search.indexing.unit_vectors import page_units_embed, pages_needing_units

    todo = list(pages_needing_units().filter(space__slug__in=corpora).values_list("id", flat=True))
    if not todo:
        return
    started, written = time.monotonic(), 0
    for page_id in tqdm(todo, desc="answer units", unit="page"):
        written += page_units_embed(page_id=page_id)
    print(f"answer units: {written} vectors for {len(todo)} pages in {time.monotonic() - started:.0f} s", flush=True)


# --- labelled queries and metrics ---------------------------------------------------


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def load_queries(name: str) -> list[dict[str, Any]]:
    path = EVAL / name
    if not path.is_file():
        raise SystemExit(f"{path}: not found (set HANDBOOK_SHARED)")
    return read_jsonl(path)


def first_k(refs: Iterable[str], k: int = K) -> list[str]:
    """Page ids in rank order, each page at its first occurrence, cut at k."""
    out: list[str] = []
    seen: set[str] = set()
    for ref in refs:
        if ref not in seen:
            seen.add(ref)
            out.append(ref)
            if len(out) == k:
                break
    return out


def ndcg(ranked: Sequence[str], relevant: dict[str, int], k: int = K) -> float:
    """nDCG@k, gain 2^grade - 1, discount log2(rank + 1); ideal from the grades in ``relevant``."""
    ranked = first_k(ranked, k)
    dcg = sum((2 ** relevant.get(ref, 0) - 1) / math.log2(rank + 1) for rank, ref in enumerate(ranked, start=1))
    ideal = sorted(relevant.values(), reverse=True)[:k]
    idcg = sum((2**grade - 1) / math.log2(rank + 1) for rank, grade in enumerate(ideal, start=1))
    return dcg / idcg if idcg > 0 else 0.0


def recall(ranked: Sequence[str], relevant: dict[str, int], k: int = K) -> float:
    wanted = {ref for ref, grade in relevant.items() if grade > 0}
    if not wanted:
        return 0.0
    return len(wanted & set(first_k(ranked, k))) / len(wanted)


def mean(values: Iterable[float]) -> float:
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100) of ``values``."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def score_run(queries: Sequence[dict[str, Any]], ranked: dict[str, list[str]]) -> dict[str, dict[str, Any]]:
    """Macro-averaged nDCG@10 / Recall@10 per corpus over answerable queries; empty result lists counted."""
    per_corpus: dict[str, dict[str, Any]] = {}
    for q in queries:
        if not q.get("relevant"):
            continue
        row = per_corpus.setdefault(q["corpus"], {"ndcg": [], "recall": [], "empty": 0})
        refs = ranked.get(q["qid"], [])
        row["ndcg"].append(ndcg(refs, q["relevant"]))
        row["recall"].append(recall(refs, q["relevant"]))
        row["empty"] += not refs
    return {
        corpus: {
            "queries": len(r["ndcg"]),
            "ndcg@10": mean(r["ndcg"]),
            "recall@10": mean(r["recall"]),
            "empty": r["empty"],
        }
        for corpus, r in per_corpus.items()
    }


# --- output -------------------------------------------------------------------------


def fmt(value: Any, digits: int = 3) -> str:
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def md_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], digits: int = 3) -> str:
    body = [[fmt(cell, digits) for cell in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(headers)]
    numeric = [all(_is_number(r[i]) for r in body) if body else False for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        return (
            "| "
            + " | ".join(c.rjust(w) if n else c.ljust(w) for c, w, n in zip(cells, widths, numeric, strict=True))
            + " |"
        )

    sep = (
        "|"
        + "|".join(("-" * (w + 1) + ":") if n else ("-" * (w + 2)) for w, n in zip(widths, numeric, strict=True))
        + "|"
    )
    return "\n".join([line(headers), sep, *(line(r) for r in body)])


def _is_number(text: str) -> bool:
    try:
        float(text.rstrip("%").replace("–", "nan"))
    except ValueError:
        return False
    return True


def section(title: str, table: str, note: str = "") -> None:
    print(f"\n### {title}\n")
    if note:
        print(note + "\n")
    print(table, flush=True)


def write_results(name: str, data: Any) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    meta = {
        "written_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "data_dir": os.environ.get("HANDBOOK_DATA_DIR"),
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
    }
    path.write_text(json.dumps({"meta": meta, **data}, indent=2, ensure_ascii=False, default=float))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\n(results: {path.relative_to(ROOT)}; load average {load} on {os.cpu_count()} CPUs)", flush=True)
    return path


def peak_rss_mb() -> float:
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


# --- processes ------------------------------------------------------------------------


def start_celery_worker(name: str, log: IO[bytes], *options: str, nice: int = 0) -> subprocess.Popen[bytes]:
    """A real Celery worker (one prefork child) in its own process group; ``options`` such as ``-Q``;
    ``nice``: its CPU priority (``nice -n``)."""
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", *options, "--loglevel=WARNING",
               "--concurrency=1", "--pool=prefork", "--without-gossip", "--without-mingle", "-n", name]  # fmt: skip
    if nice:
        command = ["nice", "-n", str(nice), *command]
    env = dict(os.environ, CELERY_TASK_ALWAYS_EAGER="false")
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def stop_process_groups(*processes: subprocess.Popen[bytes]) -> None:
    """SIGTERM the groups still running, then SIGKILL any group whose leader is not gone 30 s later."""
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
    for process in processes:
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


if __name__ == "__main__":
    if sys.argv[1:] != ["load"]:
        raise SystemExit("usage: python -m bench.common load")
    setup(migrate=True)
    ensure_corpora()
    from django.db.models import Count

    from handbook.models import Space
    from search.models import Chunk

    for space in Space.objects.filter(slug__in=ALL_CORPORA).annotate(n_pages=Count("pages")).order_by("slug"):
        chunks = Chunk.objects.filter(page__space=space)
        print(
            f"{space.slug}: {space.n_pages} pages, {chunks.count()} chunks, "
            f"{chunks.filter(embedding__isnull=False).count()} with vectors"
        )


def visible_page_ids(user: Any) -> list[int]:
    """Ids of the pages ``user`` may read (the permission query set, as the product filters)."""
    from handbook.models import Page

    return list(Page.objects.visible_to(user).order_by().values_list("id", flat=True))
