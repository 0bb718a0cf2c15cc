"""The figures Ask's goals are stated in, per question set, from ``bench.ask``'s judged rows.

- answered: share of answerable questions given an answer (sure or unsure);
- sure share: share of answerable questions answered *sure*;
- sure precision: evidence hit among the sure answers to answerable questions with evidence;
- unanswerable sure: share of unanswerable questions answered *sure*;
- evidence hit: over every answerable question with evidence, sure and unsure answers together
  (a declined question counts as a miss);
- evidence hit, shown: the same, reading what the reader is shown: an unsure answer's quote with the
  sentences around it in its passage (the citation's ``context_before`` / ``context_after``);
- extra page: among the answers to answerable questions, the share that quotes a page outside
  ``relevant`` (a page that does not hold the answer), a wrong lone quote included;
- padded: among the same answers, the share that quotes a page outside ``relevant`` beside another
  page (quotes from unrelated pages added to an answer);
- p50 / p95: Ask without an LLM, milliseconds.

A checkout whose answers say nothing of how sure they are shows every answer as sure: the row's
``confidence`` is then "sure" for every answer (``bench.ask`` sets it).
"""

from __future__ import annotations

import subprocess
from typing import Any

from bench.common import ROOT, mean, percentile

GOAL_HEADERS = [
    "set",
    "answered",
    "sure share (answerable)",
    "sure precision",
    "unanswerable answered",
    "unanswerable sure",
    "evidence hit (sure+unsure)",
    "evidence hit, shown",
    "extra page",
    "padded",
    "p50 ms",
    "p95 ms",
]


def commit() -> str:
    found = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT)
    return found.stdout.strip()


def extra_page(relevant: set[str], quoted_refs: list[str]) -> bool:
    """Whether the answer quotes a page that does not hold the answer."""
    return any(ref not in relevant for ref in quoted_refs)


def padded(relevant: set[str], quoted_refs: list[str]) -> bool:
    """Whether the answer quotes a page that does not hold the answer beside another page."""
    return len(set(quoted_refs)) > 1 and extra_page(relevant, quoted_refs)


def sure_ceiling(rows: list[dict[str, Any]], precision: float) -> list[dict[str, Any]]:
    """Per question set, the most answerable questions any threshold on the decision's probability
    could answer *sure* while the sure answers keep ``precision``: the would-be answers (``ungated``,
    the decision switched off) taken from the most probable down. It bounds what moving the sure
    threshold can give with these quotes; more needs better quotes, not another threshold."""
    out = []
    for set_name in ("native", "translated"):
        group = [r for r in rows if r["set"] == set_name and r["answerable"] and "score" in r and "ungated" in r]
        answered = sorted((r for r in group if r["ungated"]["answered"]), key=lambda r: -r["score"])
        best, hits = 0, 0
        for n, r in enumerate(answered, start=1):
            hits += 1 if r["evidence"] and r["ungated"]["evidence_hit"] else 0
            if hits / n >= precision:
                best = n
        every = sum(1 for r in answered if r["evidence"] and r["ungated"]["evidence_hit"])
        out.append(
            {
                "set": set_name,
                "answerable": len(group),
                "precision": precision,
                "most sure coverage": best / len(group) if group else float("nan"),
                "evidence hit, every question answered": every / len(group) if group else float("nan"),
            }
        )
    return out


def goal_rows(rows: list[dict[str, Any]]) -> list[list[Any]]:
    out = []
    for set_name in ("native", "translated"):
        group = [r for r in rows if r["set"] == set_name]
        answerable = [r for r in group if r["answerable"]]
        unanswerable = [r for r in group if not r["answerable"]]
        sure = [r for r in answerable if r["answered"] and r["confidence"] == "sure" and r["evidence"]]
        answered = [r for r in answerable if r["answered"]]
        with_evidence = [r for r in answerable if r["evidence"]]
        timings = [r["ask_ms"] for r in group]
        out.append(
            [
                set_name,
                mean(1.0 if r["answered"] else 0.0 for r in answerable),
                mean(1.0 if r["answered"] and r["confidence"] == "sure" else 0.0 for r in answerable),
                mean(1.0 if r["evidence_hit"] else 0.0 for r in sure),
                mean(1.0 if r["answered"] else 0.0 for r in unanswerable),  # nan (shown "–") when none
                mean(1.0 if r["answered"] and r["confidence"] == "sure" else 0.0 for r in unanswerable),
                mean(1.0 if r["evidence_hit"] else 0.0 for r in answerable if r["evidence"]),
                mean(1.0 if r.get("evidence_hit_shown", r["evidence_hit"]) else 0.0 for r in with_evidence),
                mean(1.0 if r["extra_page"] else 0.0 for r in answered),
                mean(1.0 if r.get("padded") else 0.0 for r in answered),
                percentile(timings, 50),
                percentile(timings, 95),
            ]
        )
    return out
