"""Misspelt queries: do they still find their pages, and is the right correction offered?

    python -m bench.typos              # on the corpora loaded
    python -m bench.typos --partial    # also corpora still loading (questions whose pages are indexed)
    python -m bench.typos --partial --database NAME   # another database of the bench instance (a subset)

``bench/data/typo_queries.jsonl``: 162 answerable questions of ``dev.jsonl`` and
``dev-handbooks.jsonl``, each with one content word (6 letters or more) given one
edit (or two, for some words of 8 letters or more): a letter dropped, doubled,
swapped with the next, or replaced by a neighbour on the keyboard. Written once
by a seeded script; the original question is kept beside it.

Each misspelt question and its original run through ``search.retrieval.pipeline.retrieve``
as the bench user of its eval file (``bench/common.py``), on the corpora already
loaded (this bench never loads any). Reported per corpus: nDCG@10 of the originals
and of the misspelt questions, their ratio (goal: >= 0.9), and how often the
"did you mean" correction (``search.retrieval.suggest``) gives back the original word.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ != "bench":
    raise SystemExit("run as: python -m bench.typos")

from bench import common  # noqa: E402

TYPO_FILE = Path(__file__).resolve().parent / "data" / "typo_queries.jsonl"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.typos", description=__doc__.split("\n\n")[0])
    parser.add_argument("--partial", action="store_true", help="also corpora still loading (indexed pages only)")
    parser.add_argument("--database", help="another database of the bench instance; results to typos_NAME.json")
    args = parser.parse_args(argv)
    common.setup(args.database, migrate=False)
    common.refresh_index_statistics()  # as the sweep keeps them: IDF, and the vocabulary typos are corrected from
    from bench.no_match import indexed_refs, loaded_corpora
    from core.text import fold_accents
    from handbook.models import Page
    from search.retrieval.pipeline import retrieve
    from search.retrieval.suggest import corrections
    from search.statistics.scopes import reader_of

    loaded = loaded_corpora()
    print(f"loaded corpora: {', '.join(sorted(loaded)) or 'none'}", flush=True)
    indexed, started = indexed_refs() if args.partial else (set(), set())
    queries = [
        q
        for q in common.read_jsonl(TYPO_FILE)
        if q["corpus"] in loaded or (q["corpus"] in started and all(r in indexed for r in q["relevant"]))
    ]
    refs = dict(Page.objects.values_list("id", "ref"))
    originals: dict[str, list[str]] = {}
    misspelt: dict[str, list[str]] = {}
    corrected: dict[str, bool] = {}
    started = time.perf_counter()
    for q in queries:
        user = common.bench_user(common.EVAL_FILES[q["file"]], [common.EVAL_FILES[q["file"]]])
        originals[q["qid"]] = common.first_k(refs[p.page_id] for p in retrieve(q["original"], user).pages)
        misspelt[q["qid"]] = common.first_k(refs[p.page_id] for p in retrieve(q["query"], user).pages)
        fixed = corrections(q["query"], reader_of(user))
        typo = fold_accents(q["typo"]).lower()
        corrected[q["qid"]] = fixed.get(typo) == fold_accents(q["word"]).lower()
    print(f"{len(queries)} misspelt queries and their originals in {time.perf_counter() - started:.0f} s")
    before = common.score_run(queries, originals)
    after = common.score_run(queries, misspelt)
    rows = []
    for corpus in sorted(before):
        group = [q for q in queries if q["corpus"] == corpus]
        b, a = before[corpus]["ndcg@10"], after[corpus]["ndcg@10"]
        rows.append(
            (
                corpus,
                len(group),
                b,
                a,
                a / b if b else float("nan"),
                after[corpus]["empty"],
                f"{100 * common.mean(corrected[q['qid']] for q in group):.0f}%",
            )
        )
    overall_b = common.mean(before[c]["ndcg@10"] for c in before)
    overall_a = common.mean(after[c]["ndcg@10"] for c in after)
    common.section(
        "Misspelt queries (one or two edits in a content word)",
        common.md_table(
            ("corpus", "queries", "nDCG@10 spelt right", "nDCG@10 misspelt", "ratio", "empty", "word corrected"), rows
        ),
        f"macro over corpora: {overall_b:.3f} -> {overall_a:.3f} (ratio {overall_a / overall_b:.3f}); "
        "'word corrected' = the did-you-mean correction gives back the original word.",
    )
    common.write_results(
        f"typos_{args.database}" if args.database else "typos",
        {"before": before, "after": after, "corrected": corrected, "originals": originals, "misspelt": misspelt},
    )


if __name__ == "__main__":
    main(sys.argv[1:])
