"""The product's decisions per embedding model: does search say "nothing matches", does Ask say "I don't know"?

    python -m bench.decisions [--model bundled|second|both] [--limit N] [--partial] [--force-copy] [--keep-policy]

The decisions (is a query about the handbook, which pages are results, does Ask answer) are fitted per
embedding model (``search/decisions/``, ``search/calibration/``). Two models are measured, each in its
own process (Django is configured once per process: another database, another embedder):

- ``bundled``: the local e5 (``LOCAL_MODEL_NAME``) on the bench database, with the policy the product
  finds for it (calibrated in the database, else the shipped file);
- ``second``: the stand-in of ``tests/second_model.py`` (e5 on another similarity scale) served on
  loopback and reached through ``EMBEDDINGS_BASE_URL`` as any hosted model, on ``bench_second``: the
  bench database with every stored vector transformed as the server would have served it
  (``bench/second_model_db.py``; embedding the corpora again through it would take hours). Its policy
  is fitted first by the product's calibration (``search.calibration.services.calibrate``), as
  ``manage.py calibrate`` would.

Figures, each measured as the bench that owns it measures it (its functions, not copies):
- no-match queries with no result, per ``bench/data/no_match_queries*.txt`` set and pooled, and
  answerable dev questions left empty (``bench/no_match.py``'s ``users_and_queries`` / ``served``);
- nDCG@10 per corpus of ``dev-handbooks.jsonl`` and ``dev-crosslang.jsonl``, with the SQLite FTS5
  reference of ``bench/search.py quality`` over the same visible pages;
- Ask (extractive): answered share of answerable questions, evidence hit, ``no_answer`` share of
  unanswerable ones (``bench/ask.py``'s ``judge``; definitions in ``../shared/eval/README.md``).

Only corpora already loaded are used (``--partial``: also those still loading, as ``bench.no_match``).
``--limit N``: the first N queries of each no-match set and, per corpus, N answerable and N
unanswerable dev questions (a quick run). ``--keep-policy``: the second model keeps the policy fitted
by the last run when its copy is still current (the fit takes ~4 min on two busy cores).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

if __package__ != "bench":
    raise SystemExit("run as: python -m bench.decisions ...")

from bench import common  # noqa: E402

MODELS = ("bundled", "second")
NATIVE, TRANSLATED = "dev-handbooks.jsonl", "dev-crosslang.jsonl"
ASK_SETS = {NATIVE: "native", TRANSLATED: "translated"}  # bench/ask.py's names of the two files
CORPORA = ("18f-handbook", "etalab-guides")

Runs = list[tuple[str, Any, list[dict[str, Any]]]]


# --- the model under test -------------------------------------------------------------------


def _configure(model: str, force_copy: bool, keep_policy: bool) -> dict[str, Any]:
    """Django on the model's database with the model's embedder; the stand-in's server when ``second``."""
    if model == "bundled":
        common.setup(migrate=False)  # the bench database as loaded: nothing to migrate or copy
        return {}
    from tests.second_model import MODEL, SecondModelServer

    common._use_embedded_services()  # the shell's services out first, as every bench does …
    server = SecondModelServer()  # bound (its port known) now, serving from start(), after Django is set up
    os.environ.update(
        BENCH_KEEP_ENV="1",  # … then keep the endpoint set here: setup() would drop it
        EMBEDDINGS_BASE_URL=server.url,
        EMBEDDINGS_MODEL=MODEL,
        EMBEDDINGS_DIMENSIONS="384",
        EMBEDDINGS_API_KEY="bench",  # any: the stand-in reads none, the client wants one
        # The stand-in answers one request at a time (one engine behind one lock): more in flight only
        # queue, and on two busy cores a queued request outlived the 30 s default and was retried.
        EMBEDDINGS_CONCURRENCY="1",
        EMBEDDINGS_TIMEOUT_S="120",
    )
    from bench.second_model_db import TARGET, ensure_second_db

    common.setup(database=TARGET, migrate=False)  # a copy of the migrated bench database
    server.start()
    built = ensure_second_db(force_copy)  # before the first ORM query: a rebuild drops the database
    return {"server": server, "copy": built, "calibration": _calibrate(keep_policy)}


def _calibrate(keep_policy: bool) -> dict[str, Any]:
    """The product's calibration for the configured model (what ``manage.py calibrate`` runs)."""
    from search.embedding.embedders import get_embedder
    from search.models import DecisionPolicy

    embedder = get_embedder()
    kept = DecisionPolicy.objects.filter(model=embedder.model_name).first() if keep_policy else None
    if kept is not None:  # a quick rerun on the same copy: the policy fitted last time
        print(f"keeping the policy of {kept.model} fitted at {kept.report.get('fitted_at')}", flush=True)
        return {"ran": False, "kept": kept.report.get("fitted_at"), "held_out": _held_out(kept.decisions)}
    try:
        from search.calibration.services import calibrate
    except ImportError as exc:  # the hook: without it the model has no policy and keyword rules decide
        print(f"NOTE: no calibration ({exc}): the second model is measured without a fitted policy", flush=True)
        return {"ran": False, "error": str(exc)}
    print(f"calibrating {embedder.model_name}…", flush=True)
    row = calibrate(embedder)
    print(f"  fitted in {row.report.get('seconds')} s", flush=True)
    return {"ran": True, "seconds": row.report.get("seconds"), "held_out": _held_out(row.decisions)}


def _held_out(decisions: dict[str, Any]) -> dict[str, Any]:
    return {name: body.get("report", {}).get("held_out") for name, body in decisions.items()}


def policy_record() -> dict[str, Any]:
    """Which policy the serving query model decides with: its source and every threshold."""
    from search.decisions.policy import policy_for
    from search.embedding.model_switch import query_embedder

    embedder = query_embedder()
    policy = policy_for(embedder.model_name) if embedder else None
    return {
        "model": embedder.model_name if embedder else None,
        "source": policy.source if policy else None,
        "thresholds": {name: dict(d.thresholds) for name, d in policy.decisions.items()} if policy else {},
        "fitted_at": policy.report.get("fitted_at") if policy else None,
    }


# --- the queries ----------------------------------------------------------------------------


def _bounded(runs: Runs, limit: int | None) -> Runs:
    """The first ``limit`` no-match queries of each set; per corpus, ``limit`` answerable and as many
    unanswerable dev questions (the unanswerable ones come last in the files)."""
    if not limit:
        return runs
    out: Runs = []
    for name, user, queries in runs:
        taken: dict[tuple[str, bool], int] = {}
        kept = []
        for q in queries:
            key = (q["corpus"], bool(q["relevant"]))
            if taken.get(key, 0) < limit:
                taken[key] = taken.get(key, 0) + 1
                kept.append(q)
        out.append((name, user, kept))
    return out


def no_match_sets(runs: Runs, served: dict[str, Any]) -> dict[str, Any]:
    """Share with no result per no-match set (``served``'s figures) and pooled over every set."""
    from bench.no_match import HELD_OUT_FILES

    sizes: dict[str, int] = {}
    for _name, _user, queries in runs:
        for q in queries:
            if q.get("no_match"):
                label = q.get("held_out") or "first"
                sizes[label] = sizes.get(label, 0) + 1
    shares = {"first": served["no_match"], **{n: served[f"no_match_{n}_set"] for n in HELD_OUT_FILES}}
    shares = {name: share for name, share in shares.items() if sizes.get(name)}
    pooled = sum(shares[n] * sizes[n] for n in shares) / max(1, sum(sizes[n] for n in shares))
    return {"per_set": shares, "queries": sizes, "pooled": pooled}


def fts5_baseline(runs: Runs) -> dict[str, dict[str, Any]]:
    """``bench/search.py quality``'s fts5-bm25 reference: FTS5 over the pages the file's user may read."""
    from bench.search import Fts5Index, _visible_docs

    indexes: dict[int, Any] = {}
    out: dict[str, dict[str, Any]] = {}
    for name, user, queries in runs:
        if name not in ASK_SETS:
            continue
        if user.pk not in indexes:
            indexes[user.pk] = Fts5Index([(ref, title, body) for ref, title, body, _c in _visible_docs(user)])
        ranked = {q["qid"]: indexes[user.pk].search(q["query"]) for q in queries}
        out[name] = common.score_run(queries, ranked)
    return out


def ask_figures(runs: Runs) -> dict[str, Any]:
    """Ask as ``bench/ask.py`` judges it, over the same dev questions; its per-corpus table printed."""
    from bench.ask import HEADERS, _rows_table, _summary_row, judge
    from search.ask.answers import answer_question

    rows: list[dict[str, Any]] = []
    for name, user, queries in runs:
        if name not in ASK_SETS:
            continue
        for q in queries:
            answer = answer_question(user=user, question=q["query"], rate_limit=False, use_cache=False, log=False)
            rows.append(
                {
                    "set": ASK_SETS[name],
                    "qid": q["qid"],
                    "corpus": q["corpus"],
                    "lang": q["lang"],
                    "answerable": bool(q["relevant"]),
                    "evidence": q.get("evidence") or "",
                    **judge(q, answer),
                }
            )
    table = _rows_table(rows)
    common.section("Ask, answer level (extractive, bench/ask.py's judge)", common.md_table(HEADERS, table))
    totals = {}
    for set_name in ASK_SETS.values():
        row = dict(
            zip(HEADERS, _summary_row((set_name, "all", ""), [r for r in rows if r["set"] == set_name]), strict=True)
        )
        totals[set_name] = {k: row[k] for k in ("answerable", "answered", "evidence hit", "unanswerable", "no_answer")}
    return {"totals": totals, "table": [dict(zip(HEADERS, r, strict=True)) for r in table], "rows": rows}


# --- one model ------------------------------------------------------------------------------


def measure(model: str, limit: int | None, partial: bool, force_copy: bool, keep_policy: bool) -> dict[str, Any]:
    context = _configure(model, force_copy, keep_policy)
    try:
        from bench.no_match import served, users_and_queries

        common.refresh_index_statistics()  # as served after indexing (IDF, word-translation vocabulary)
        runs = _bounded(users_and_queries(partial), limit)
        found = served(runs)
        figures = {
            "model": model,
            "policy": policy_record(),
            "no_match": no_match_sets(runs, found),
            "answerable_empty": found["empty"],
            "answerable": sum(1 for _n, _u, qs in runs for q in qs if q.get("relevant")),
            "ndcg": found["ndcg"],
            "fts5": fts5_baseline(runs),
            "ask": ask_figures(runs),
            "limit": limit,
            "partial": partial,
            **{k: v for k, v in context.items() if k != "server"},
        }
        if "server" in context:
            figures["endpoint_requests"] = context["server"].stats()
    finally:
        if "server" in context:
            context["server"].stop()
    table = summary_rows({model: figures})
    common.section(
        f"Decisions: {model} model ({figures['policy']['model']})", common.md_table(("figure", model), table)
    )
    common.write_results(f"decisions_{model}", figures)
    return figures


def summary_rows(results: dict[str, dict[str, Any]]) -> list[list[Any]]:
    """figure | one column per model (the models of ``results``, in order)."""
    models = list(results)

    def row(label: str, get: Any) -> list[Any]:
        values = []
        for m in models:
            try:
                values.append(get(results[m]))
            except (KeyError, TypeError):
                values.append(float("nan"))
        return [label, *values]

    rows = [
        row("model", lambda r: r["policy"]["model"]),
        row("policy source", lambda r: r["policy"]["source"]),
        *(
            row(f"threshold {decision} {name}", lambda r, d=decision, n=name: r["policy"]["thresholds"][d][n])
            for decision, name in _threshold_names(results)
        ),
        row("no-match, no result (pooled)", lambda r: r["no_match"]["pooled"]),
        *(
            row(f"no-match, no result ({s} set)", lambda r, s=s: r["no_match"]["per_set"][s])
            for s in dict.fromkeys(s for r in results.values() for s in r["no_match"]["per_set"])
        ),
        row("answerable dev questions left empty", lambda r: f"{r['answerable_empty']}/{r['answerable']}"),
    ]
    for name in (NATIVE, TRANSLATED):
        for corpus in CORPORA:
            rows.append(row(f"nDCG@10 {name} {corpus}", lambda r, n=name, c=corpus: r["ndcg"][f"{n} {c}"]))
            rows.append(row(f"  FTS5 {name} {corpus}", lambda r, n=name, c=corpus: r["fts5"][n][c]["ndcg@10"]))
    for set_name in ASK_SETS.values():
        rows.append(
            row(f"Ask {set_name}: answered (answerable)", lambda r, s=set_name: r["ask"]["totals"][s]["answered"])
        )
        rows.append(row(f"Ask {set_name}: evidence hit", lambda r, s=set_name: r["ask"]["totals"][s]["evidence hit"]))
    rows.append(row("Ask native: no_answer (unanswerable)", lambda r: r["ask"]["totals"]["native"]["no_answer"]))
    return rows


def _threshold_names(results: dict[str, dict[str, Any]]) -> list[tuple[str, str]]:
    names = {(d, n) for r in results.values() for d, ts in r["policy"]["thresholds"].items() for n in ts}
    return sorted(names)


# --- both -----------------------------------------------------------------------------------


def both(argv: Sequence[str]) -> None:
    """Each model in its own process, then the two side by side."""
    results: dict[str, dict[str, Any]] = {}
    failed = []
    for model in MODELS:
        command = [sys.executable, "-m", "bench.decisions", "--model", model, *argv]
        print(f"\n$ python -m bench.decisions --model {model} {' '.join(argv)}".rstrip(), flush=True)
        if subprocess.run(command, cwd=common.ROOT, check=False).returncode:
            failed.append(model)
            continue
        path = common.RESULTS / f"decisions_{model}.json"
        results[model] = json.loads(path.read_text(encoding="utf-8"))
    if results:
        common.section(
            "Decisions per embedding model",
            common.md_table(("figure", *results), summary_rows(results)),
            "bundled: the local e5 on the bench database; second: the stand-in of tests/second_model.py through "
            "its endpoint, on bench_second (the same pages, vectors transformed as it serves them), policy fitted "
            "by the product's calibration first. FTS5: bench/search.py's fts5-bm25 reference on the same pages.",
        )
        common.write_results("decisions", {"models": results, "table": summary_rows(results)})
    if failed:
        raise SystemExit(f"failed: {', '.join(failed)}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.decisions", description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=(*MODELS, "both"), default="both")
    parser.add_argument(
        "--limit", type=int, default=None, help="per no-match set, and per corpus and kind of dev question"
    )
    parser.add_argument("--partial", action="store_true", help="also corpora still loading (indexed pages only)")
    parser.add_argument("--force-copy", action="store_true", help="copy and transform bench_second again")
    parser.add_argument("--keep-policy", action="store_true", help="second: reuse its policy stored in bench_second")
    args = parser.parse_args(argv)
    if args.model == "both":
        flags = {"--partial": args.partial, "--force-copy": args.force_copy, "--keep-policy": args.keep_policy}
        both([*(["--limit", str(args.limit)] if args.limit else []), *(f for f, on in flags.items() if on)])
    else:
        measure(args.model, args.limit, args.partial, args.force_copy, args.keep_policy)


if __name__ == "__main__":
    main(sys.argv[1:])
