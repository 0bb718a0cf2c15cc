"""Ask benchmark, judged at the answer level (extractive mode, no LLM).

For every question of ``dev-handbooks.jsonl`` (native) and ``dev-crosslang.jsonl`` (translated),
asked as the ``bench-handbooks`` user (reads the three handbooks):

- **evidence hit** (answerable questions with ``evidence``): the answer is not ``no_answer``, cites
  a page of ``relevant``, and the text quoted from relevant pages covers at least half of the
  evidence's content words (``../shared/eval/README.md``: lower-cased, accents folded, split on
  non-alphanumerics, words of 2 letters or fewer dropped, numbers kept, the README's stop words
  dropped);
- answered rate (answerable), ``no_answer`` rate (unanswerable), first citation relevant;
- the answer's length: words quoted and units (sentences or table rows) per answer;
- all of it per corpus and question language;
- a sweep of the answerability threshold: the answers are also built with the decision switched
  off, so each threshold's answered / declined / evidence-hit figures are exact;
- how sure: per set, the evidence hit among the answers given as sure and as unsure, the share of
  answerable questions answered sure and the share of unanswerable ones answered sure;
- the kind of answer asked: among the answers to questions asking for a date, an amount, a count or a
  person ("when", "how much", "how many", "who": ``search/ask/asked_kind.py``), the share whose lead
  quote holds that kind;
- overhead: Ask without an LLM (retrieval + passages + the extractive writer), cold caches;
- the goals' figures per set: ``bench/ask_goals.py``.

Run: python -m bench.ask   (after the corpora are loaded by bench.search or make bench)
     python -m bench.ask --database bench_ask_after --label after   (a subset: bench/ask_subset.py)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import time
import unicodedata
from collections.abc import Iterable
from typing import Any

from bench.ask_goals import GOAL_HEADERS, commit, extra_page, goal_rows, padded, sure_ceiling
from bench.common import RESULTS, ensure_corpora, load_queries, md_table, mean, percentile, setup

SCOPE = "bench-handbooks"
MIN_COVERAGE = 0.5
MAX_WORDS = 80
MAX_UNITS = 3
SURE_PRECISION_GOAL = 0.85  # the precision Ask's sure answers are held to; the ceiling is read at it

# The eval README's stop words, verbatim: the measure must not depend on the product's own lists.
EVAL_STOPWORDS = frozenset(
    """
    the and for are but not you your with this that from have has was were will shall can may
    what when where which who how why does did into onto about than then there their they them
    our out all any each per its also only over under more most some such very just been being
    les des une est pas pour par dans sur avec que qui quoi dont sont ces aux vos nos leur leurs
    son ses mais plus moins comme tout tous toute toutes elle ils elles nous vous cette cet etre
    avoir fait faire peut doit sans sous chez entre lors ainsi donc car
    """.split()  # noqa: SIM905 (the README's list, pasted as it is written)
)
_NON_ALNUM = re.compile(r"[^0-9a-z]+")
# “quote” [n], optionally with the quote's language before the marker: “…” (French) [2]
_QUOTE = re.compile(r"“(.*?)”\s*(?:\([^)]*\)\s*)?\[(\d+)\]", re.S)


def eval_content_words(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKD", text.lower())
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    return [w for w in _NON_ALNUM.split(folded) if w and (w.isdigit() or len(w) > 2) and w not in EVAL_STOPWORDS]


def coverage(evidence: str, quoted: str) -> float:
    wanted = set(eval_content_words(evidence))
    if not wanted:
        return 0.0
    return len(wanted & set(eval_content_words(quoted))) / len(wanted)


def quoted_units(answer: Any) -> list[tuple[str, str]]:
    """(ref, quoted text) for every quote of the answer, in order."""
    by_number = {c.number: c.ref for c in answer.citations}
    if answer.mode == "extractive":
        units = [(by_number.get(int(n), ""), text) for text, n in _QUOTE.findall(answer.text)]
        if units:
            return units
    return [(c.ref, c.quote) for c in answer.citations if c.quote]


def judge(q: dict[str, Any], answer: Any) -> dict[str, Any]:
    relevant = set(q["relevant"])
    units = quoted_units(answer)
    answered = answer.mode != "no_answer"
    cites_relevant = any(c.ref in relevant for c in answer.citations)
    quoted = " ".join(text for ref, text in units if ref in relevant)
    if answer.mode == "llm":
        quoted += " " + answer.text
    cover = coverage(q["evidence"], quoted) if q.get("evidence") else 0.0
    # What the page shows of an unsure quote: the quote between the sentences around it in its passage.
    shown = " ".join(
        " ".join((getattr(c, "context_before", ""), c.quote, getattr(c, "context_after", "")))
        for c in answer.citations
        if c.ref in relevant
    )
    shown_cover = coverage(q["evidence"], f"{quoted} {shown}") if q.get("evidence") else 0.0
    return {
        "answered": answered,
        "first_relevant": bool(answer.citations) and answer.citations[0].ref in relevant,
        "evidence_hit": bool(q.get("evidence")) and answered and cites_relevant and cover >= MIN_COVERAGE,
        "evidence_hit_shown": bool(q.get("evidence")) and answered and cites_relevant and shown_cover >= MIN_COVERAGE,
        "coverage": cover,
        "words": sum(len(text.split()) for _ref, text in units) if answered else 0,
        "units": len(units) if answered else 0,
        "quotes": [text for _ref, text in units],
        "cited": [c.ref for c in answer.citations],
        "quoted_refs": [ref for ref, _text in units],
        "extra_page": answered and extra_page(relevant, [ref for ref, _text in units]),
        "padded": answered and padded(relevant, [ref for ref, _text in units]),
    }


def _rows_table(rows: list[dict[str, Any]]) -> list[list[Any]]:
    out: list[list[Any]] = []
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["set"], r["corpus"], r["lang"]), []).append(r)
    for set_name in ("native", "translated"):
        in_set = [r for r in rows if r["set"] == set_name]
        keys = sorted(k for k in groups if k[0] == set_name)
        for key in [*keys, (set_name, "all", "")]:
            group = in_set if key[1] == "all" else groups[key]
            out.append(_summary_row(key, group))
    return out


def _summary_row(key: tuple[str, str, str], group: list[dict[str, Any]]) -> list[Any]:
    answerable = [r for r in group if r["answerable"]]
    unanswerable = [r for r in group if not r["answerable"]]
    with_evidence = [r for r in answerable if r["evidence"]]
    answered = [r for r in answerable if r["answered"]]
    words = [r["words"] for r in answered]
    return [
        key[0],
        key[1],
        key[2],
        len(answerable),
        mean(1.0 if r["answered"] else 0.0 for r in answerable),
        mean(1.0 if r["first_relevant"] else 0.0 for r in answerable),
        mean(1.0 if r["evidence_hit"] else 0.0 for r in with_evidence),
        len(unanswerable),
        mean(0.0 if r["answered"] else 1.0 for r in unanswerable),
        mean(words),
        percentile(words, 95),
        max((r["units"] for r in answered), default=0),
        sum(1 for r in answered if r["words"] > MAX_WORDS or r["units"] > MAX_UNITS),
    ]


HEADERS = [
    "set",
    "corpus",
    "question lang",
    "answerable",
    "answered",
    "first citation relevant",
    "evidence hit",
    "unanswerable",
    "no_answer",
    "words mean",
    "words p95",
    "units max",
    "over length",
]


SWEEP_HEADERS = [
    "min score",
    "native answered",
    "native no_answer (unanswerable)",
    "native evidence hit",
    "translated answered",
    "translated evidence hit",
]


def _sweep(rows: list[dict[str, Any]], thresholds: Iterable[float]) -> list[list[Any]]:
    """Answered / declined / evidence hit at each answerability threshold (highest unit similarity)."""
    native = [r for r in rows if r["set"] == "native"]
    translated = [r for r in rows if r["set"] == "translated"]
    out = []
    for t in thresholds:

        def on(r: dict[str, Any], t: float = t) -> bool:
            return r["ungated"]["answered"] and r["score"] >= t

        def hit(group: list[dict[str, Any]], t: float = t) -> float:
            return mean(1.0 if on(r, t) and r["ungated"]["evidence_hit"] else 0.0 for r in group if r["evidence"])

        out.append(
            [
                t,
                mean(1.0 if on(r) else 0.0 for r in native if r["answerable"]),
                mean(0.0 if on(r) else 1.0 for r in native if not r["answerable"]),
                hit(native),
                mean(1.0 if on(r) else 0.0 for r in translated if r["answerable"]),
                hit(translated),
            ]
        )
    return out


CONFIDENCE_HEADERS = [
    "set",
    "answered sure",
    "evidence hit, sure",
    "answered unsure",
    "evidence hit, unsure",
    "answerable answered sure",
    "unanswerable answered sure",
]


def _confidence_split(rows: list[dict[str, Any]]) -> list[list[Any]]:
    """Whether "sure" can be trusted: evidence among sure answers against unsure ones, and how often
    each kind of question is answered sure."""
    out = []
    for set_name in ("native", "translated"):
        group = [r for r in rows if r["set"] == set_name]
        answerable = [r for r in group if r["answerable"]]
        unanswerable = [r for r in group if not r["answerable"]]
        line: list[Any] = [set_name]
        for level in ("sure", "unsure"):
            given = [r for r in answerable if r["answered"] and r["confidence"] == level]
            line += [len(given), mean(1.0 if r["evidence_hit"] else 0.0 for r in given if r["evidence"])]
        line += [
            mean(1.0 if r["confidence"] == "sure" else 0.0 for r in answerable),
            mean(1.0 if r["confidence"] == "sure" else 0.0 for r in unanswerable),
        ]
        out.append(line)
    return out


def _right_kind(question: str, row: dict[str, Any]) -> bool | None:
    """Whether the lead quote holds the kind asked; None when the question asks for no such kind or
    was not answered (or the checkout does not detect the kind asked)."""
    try:
        from search.ask.asked_kind import asked_kind, holds
        from search.calibration.answer_fit import RIGHT_KINDS
        from statements.answer_units import Unit
    except ImportError:
        return None

    kind = asked_kind(question)
    if kind not in RIGHT_KINDS or not row["answered"] or not row["quotes"]:
        return None
    lead = row["quotes"][0]
    return holds(kind, Unit(lead, "sentence", "", "", lead))  # a row's text names its cells: "Days: 27"


def _right_kind_share(rows: list[dict[str, Any]]) -> dict[str, Any]:
    judged = [r["right_kind"] for r in rows if r.get("right_kind") is not None]
    return {"answers": len(judged), "share": mean(1.0 if held else 0.0 for held in judged)}


def _overhead_over_every_corpus(sets: dict[str, list[dict[str, Any]]]) -> dict[str, Any] | None:
    """The same questions asked by the ``bench`` user, who reads every corpus loaded (the FAQ corpora
    too, when ``bench.search`` or ``make bench`` loaded them): Ask's overhead at that index size."""
    from django.contrib.auth.models import User

    from handbook.models import Page
    from search.ask.answers import answer_question
    from search.models import Chunk

    reader = User.objects.filter(username="bench").first()
    if reader is None:
        return None
    chunks = Chunk.objects.filter(page__in=Page.objects.visible_to(reader)).count()
    timings: list[float] = []
    for queries in sets.values():
        for q in queries:
            started = time.perf_counter()
            answer_question(user=reader, question=q["query"], rate_limit=False, use_cache=False, log=False)
            timings.append((time.perf_counter() - started) * 1000)
    figures = {
        "chunks": chunks,
        "p50_ms": percentile(timings, 50),
        "p95_ms": percentile(timings, 95),
        "n": len(timings),
    }
    print(
        f"Ask without an LLM as a reader of every corpus loaded ({chunks} chunks, cold caches): "
        f"p50 {figures['p50_ms']:.0f} ms, p95 {figures['p95_ms']:.0f} ms (n={len(timings)})"
    )
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.ask", description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="a subset database made by bench.ask_subset (default: the full corpora)")
    parser.add_argument("--label", help="results go to bench/results/ask_<label>.json (default ask.json)")
    args = parser.parse_args()
    started_run = time.monotonic()
    # Cold caches: no query, translation or unit vector cached by an earlier run is reused.
    os.environ["CACHE_KEY_PREFIX"] = f"bench-ask-{time.time_ns()}"
    if args.database:
        from bench.ask_subset import use_database

        use_database(args.database)
    else:
        setup()
        ensure_corpora(("18f-handbook", "etalab-guides", "betagouv-communaute"))
    from bench.common import refresh_index_statistics

    refresh_index_statistics()  # under the fresh prefix: the word-translation vocabulary's version
    from django.contrib.auth.models import User

    from search.ask.answers import answer_question

    user = User.objects.get(username=SCOPE)
    sets = {"native": load_queries("dev-handbooks.jsonl"), "translated": load_queries("dev-crosslang.jsonl")}
    rows: list[dict[str, Any]] = []
    ask_ms: list[float] = []
    for set_name, queries in sets.items():
        for q in queries:
            started = time.perf_counter()
            answer = answer_question(user=user, question=q["query"], rate_limit=False, use_cache=False, log=False)
            ask_ms.append((time.perf_counter() - started) * 1000)
            answered = answer.mode != "no_answer"
            # a checkout that does not say how sure shows every answer as sure
            confidence = getattr(answer, "confidence", "sure" if answered else None)
            row = {
                "set": set_name,
                "qid": q["qid"],
                "query": q["query"],
                "corpus": q["corpus"],
                "lang": q["lang"],
                "answerable": bool(q["relevant"]),
                "evidence": q.get("evidence") or "",
                "confidence": confidence,
                "ask_ms": ask_ms[-1],
                **judge(q, answer),
            }
            row["right_kind"] = _right_kind(q["query"], row)
            selection = getattr(answer, "selection", None)  # the decision; older checkouts have none
            if selection is not None and selection.score is not None:  # the would-be answer, whatever the threshold
                from search.ask.quoted import quoting  # not in older checkouts (bench.ask_subset's before)

                row["ungated"] = judge(q, quoting(q["query"], answer.language, selection.quotes))
                row["score"] = selection.score
                row["threshold"] = selection.threshold
            rows.append(row)

    print("\n### Ask, answer level (extractive, bench-handbooks user)\n")
    print(md_table(HEADERS, _rows_table(rows)))
    confidence = _confidence_split(rows)
    print("\n### How sure (answers given as sure or unsure, answerable questions with evidence)\n")
    print(md_table(CONFIDENCE_HEADERS, confidence))
    print(
        f"\nAsk without an LLM (retrieval + passages + extractive writer, cold caches): "
        f"p50 {percentile(ask_ms, 50):.0f} ms, p95 {percentile(ask_ms, 95):.0f} ms (n={len(ask_ms)})"
    )
    goals = goal_rows(rows)
    print("\n### Goals' figures (answerable questions unless said; sure+unsure unless said)\n")
    print(md_table(GOAL_HEADERS, goals))
    kind = _right_kind_share(rows)
    print(
        f"\nRight kind: {kind['share']:.3f} of the {kind['answers']} answers to questions asking for a date, "
        "an amount, a count or a person hold that kind in their lead quote"
    )
    wide = _overhead_over_every_corpus(sets)
    sweep: list[list[Any]] = []
    scored = [r for r in rows if "score" in r and "ungated" in r]
    if scored:  # the decision's answer probability and its fitted threshold
        current = max(r["threshold"] or 0.0 for r in scored)
        scores = sorted(r["score"] for r in scored)
        offsets = (-0.3, -0.2, -0.15, -0.1, -0.05, 0, 0.05, 0.1, 0.15, 0.2)
        grid = sorted({round(min(max(current + d, 0.0), 1.0), 3) for d in offsets})
        sweep = _sweep(scored, grid)
        print(f"\n### Answerability threshold sweep (best unit's score; current {current})\n")
        print(md_table(SWEEP_HEADERS, sweep))
        print(f"(scores range {scores[0]:.3f} .. {scores[-1]:.3f})")
    ceiling = sure_ceiling(scored, SURE_PRECISION_GOAL)
    print(f"\n### The most sure answers any threshold gives at sure precision {SURE_PRECISION_GOAL}\n")
    for row in ceiling:
        print(" | ".join(f"{k}: {v:.3f}" if isinstance(v, float) else f"{k}: {v}" for k, v in row.items()))
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / (f"ask_{args.label}.json" if args.label else "ask.json")
    out.write_text(
        json.dumps(
            {
                "commit": commit(),
                "database": args.database or "full corpora",
                "wall_s": round(time.monotonic() - started_run),
                "load_average": os.getloadavg(),
                "cpus": os.cpu_count(),
                "goals": [dict(zip(GOAL_HEADERS, r, strict=True)) for r in goals],
                "table": [dict(zip(HEADERS, r, strict=True)) for r in _rows_table(rows)],
                "ask_p50_ms": percentile(ask_ms, 50),
                "ask_p95_ms": percentile(ask_ms, 95),
                "ask_every_corpus": wide,
                "confidence": [dict(zip(CONFIDENCE_HEADERS, r, strict=True)) for r in confidence],
                "right_kind": kind,
                "sweep": sweep,
                "sure_ceiling": ceiling,
                "rows": rows,
            },
            indent=2,
            ensure_ascii=False,
            default=float,
        )
    )
    print(f"\n(rows: {out})")


if __name__ == "__main__":
    main()
