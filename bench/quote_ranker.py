"""Quote ranker benchmark: does Ask's evidence hit go up once verified answers have refitted it?

Ask's learnt quote ranker (``search/ask/quote_learning.py``) learns from editors' verified answers.
This bench asks the same questions through Ask (``answer_question``, extractive, no LLM, not logged,
no answer cache) as the bench reader, before and after the ranker is refitted from the 40 answers
``bench.verified`` verifies, and judges each answer as ``bench.ask`` does (``judge``: evidence hit,
``../shared/eval/README.md``). The verified answer Ask shows next to its quotes is not judged: only
the quotes, which the ranker orders.

- **before**: no quote ranker fit in the database, nothing cached (``learnt_weights`` returns None):
  the shipped order;
- **after**: ``quote_ranker_fit()`` from the 40 verified answers; its fit report (held out: how
  often the first unit is one the editor picked, learnt vs shipped) is printed, and whether it is in
  use (it serves only with ``MIN_ANSWERS`` answers and when held out it is at least as good);
- **control**: the fit deleted again, the same questions asked once more (caches now warm): an answer
  that differs from *before* would have changed for another reason than the ranker (should be none).

Question sets, each reported on its own:

- **held-out dev**: the answerable ``dev-handbooks`` questions with ``evidence`` that are not among
  the 40 verified ones and whose relevant pages are all in the bench handbook (the other questions on
  the verified pages' corpora);
- **blind**: ``bench/data/verified_paraphrases.jsonl``, paraphrases of the verified questions written
  without seeing the ranker; each is judged with its verified question's ``relevant`` and ``evidence``;
- **verified**: the 40 verified questions themselves (for information: the ranker learnt from them).

It runs on ``bench.verified``'s database (``bench_verified``; ``build`` writes only the pages
missing). There, the verified pages are restricted to the readers' group and one account reads only
the CNIL FAQ: no verified page is read by every active account, so under the ranker's rule (only
pages everyone may read teach it) the 40 answers teach nothing. The bench therefore measures in a
setting where they do, inside one transaction it rolls back at the end: the restriction on the
verified pages is lifted, the accounts that still cannot read every verified page are deactivated
(the CNIL-only reader), the 40 answers are verified again (``verify_all``) and any quote ranker fit
is deleted. The three passes run in that transaction (Ask's retrieval legs then run one after another,
not in parallel: slower, same answers), so the database is left as it was found; the in-process
cache of the learnt weights is cleared before and after.

Run: python -m bench.quote_ranker [--distractors 100]
"""

from __future__ import annotations

import argparse
import logging
import time
from typing import Any

from bench.ask import judge
from bench.common import md_table, mean, read_jsonl, section, setup, write_results
from bench.verified import DATABASE, PARAPHRASES, bench_handbook, verify_all

SETS = {
    "held_out": "held-out dev (dev-handbooks, not verified)",
    "blind": "blind (paraphrases of the verified questions)",
    "verified": "the 40 verified questions (information)",
}


# --- the questions ---------------------------------------------------------------------


def question_sets(
    handbooks: list[dict[str, Any]], chosen: list[tuple[dict[str, Any], str]], refs: set[str]
) -> dict[str, list[dict[str, Any]]]:
    """The three sets, each question with ``qid``, ``query``, ``relevant`` and ``evidence``."""
    chosen_qids = {q["qid"] for q, _ref in chosen}
    by_qid = {q["qid"]: q for q, _ref in chosen}
    held_out = [
        q
        for q in handbooks
        if q.get("relevant") and q.get("evidence") and q["qid"] not in chosen_qids and set(q["relevant"]) <= refs
    ]
    blind = []
    for p in read_jsonl(PARAPHRASES):
        source = by_qid.get(p["qid"])
        if source is None:
            raise SystemExit(f"{PARAPHRASES.name}: {p['qid']} is not a verified question")
        blind.append(
            {
                "qid": p["id"],
                "source_qid": p["qid"],
                "query": p["query"],
                "lang": p.get("lang", source["lang"]),
                "relevant": source["relevant"],
                "evidence": source["evidence"],
            }
        )
    return {"held_out": held_out, "blind": blind, "verified": [q for q, _ref in chosen]}


# --- the setting where the verified pages teach ----------------------------------------


def open_verified_pages(verified_refs: set[str]) -> dict[str, Any]:
    """Lift the verified pages' restriction and deactivate the accounts that still cannot read every
    one of them (call inside the transaction that is rolled back)."""
    from django.contrib.auth import get_user_model

    from handbook.models import Page

    pages = list(Page.objects.filter(ref__in=verified_refs))
    for page in pages:
        page.restricted_to_groups.clear()
    page_ids = {page.pk for page in pages}
    deactivated = []
    for user in get_user_model().objects.filter(is_active=True, is_superuser=False).order_by("username"):
        visible = set(Page.objects.visible_to(user).filter(pk__in=page_ids).values_list("pk", flat=True))
        if visible != page_ids:
            user.is_active = False
            user.save(update_fields=["is_active"])
            deactivated.append(user.username)
    return {"pages_opened": len(pages), "accounts_deactivated": deactivated}


def forget_fits() -> None:
    """No quote ranker fit in the database nor in this process's cache: Ask uses the shipped order."""
    from core import fitted
    from search.models import QuoteRankerFit

    QuoteRankerFit.objects.all().delete()
    fitted.forget()  # this process's copy of the fitted things


# --- asking ----------------------------------------------------------------------------


def ask_all(reader: Any, questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each question through Ask (extractive, not logged, no answer cache), judged."""
    from search.ask.answers import answer_question

    out = []
    for q in questions:
        started = time.perf_counter()
        answer = answer_question(user=reader, question=q["query"], rate_limit=False, use_cache=False, log=False)
        ms = (time.perf_counter() - started) * 1000
        judged = judge(q, answer)
        out.append({"qid": q["qid"], "query": q["query"], "ms": round(ms, 1), **judged})
    return out


def _pct(value: float) -> str:
    return f"{100 * value:.1f} %"


def _rate(rows: list[dict[str, Any]], key: str) -> float:
    return mean(1.0 if r[key] else 0.0 for r in rows)


def compare(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> dict[str, Any]:
    changed = [b["qid"] for b, a in zip(before, after, strict=True) if b["quotes"] != a["quotes"]]
    gained = [b["qid"] for b, a in zip(before, after, strict=True) if a["evidence_hit"] and not b["evidence_hit"]]
    lost = [b["qid"] for b, a in zip(before, after, strict=True) if b["evidence_hit"] and not a["evidence_hit"]]
    return {
        "n": len(before),
        "answered_before": _rate(before, "answered"),
        "answered_after": _rate(after, "answered"),
        "evidence_hit_before": _rate(before, "evidence_hit"),
        "evidence_hit_after": _rate(after, "evidence_hit"),
        "hits_before": sum(1 for r in before if r["evidence_hit"]),
        "hits_after": sum(1 for r in after if r["evidence_hit"]),
        "quotes_changed": changed,
        "hits_gained": gained,
        "hits_lost": lost,
    }


# --- main ------------------------------------------------------------------------------


def main() -> None:  # noqa: PLR0915 - one bench, read top to bottom
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--distractors", type=int, default=100, help="as bench.verified (its pages are reused: keep its value)"
    )
    args = parser.parse_args()
    bench_started = time.monotonic()
    setup(database=DATABASE)
    logging.getLogger("celery.app.trace").setLevel(logging.WARNING)
    from django.db import transaction

    from core import fitted
    from handbook.models import Page
    from search.ask.quote_learning import MIN_ANSWERS, learnt_weights, pages_everyone_reads, quote_ranker_fit
    from search.embedding.model_switch import query_embedder
    from search.models import QuoteRankerFit, VerifiedAnswer

    # The bench handbook of bench.verified: the same verified questions, pages and users.
    _rows, handbooks, chosen, built = bench_handbook(args.distractors)
    verified_refs = {ref for _q, ref in chosen}
    reader = built["users"]["reader"]
    refs = set(Page.objects.published().values_list("ref", flat=True))
    sets = question_sets(handbooks, chosen, refs)
    embedder = query_embedder()
    model = embedder.model_name if embedder is not None else ""
    found = {
        "fits": QuoteRankerFit.objects.count(),
        "verified_answers": VerifiedAnswer.objects.count(),
        "verified_pages_everyone_reads": len(
            pages_everyone_reads() & set(Page.objects.filter(ref__in=verified_refs).values_list("pk", flat=True))
        ),
    }
    print(
        f"(handbook: {built['pages']} pages, {built['written']} written now; model {model or 'none'}; found "
        f"{found['fits']} quote ranker fit(s), {found['verified_answers']} verified answers, "
        f"{found['verified_pages_everyone_reads']} of the {len(verified_refs)} verified pages read by every "
        f"active account; questions: " + ", ".join(f"{k} {len(v)}" for k, v in sets.items()) + ")",
        flush=True,
    )

    passes: dict[str, dict[str, list[dict[str, Any]]]] = {}
    timings: dict[str, float] = {}
    with transaction.atomic():
        setting = open_verified_pages(verified_refs)
        verified_page_ids = set(Page.objects.filter(ref__in=verified_refs).values_list("pk", flat=True))
        setting["verified_pages_everyone_reads"] = len(pages_everyone_reads() & verified_page_ids)
        started = time.monotonic()
        verified = verify_all(built["users"]["editor"], chosen)
        setting["verified_answers"] = len(verified)
        timings["verify_s"] = time.monotonic() - started
        print(
            f"(in the rolled-back transaction: {setting['pages_opened']} verified pages opened, accounts "
            f"deactivated: {', '.join(setting['accounts_deactivated']) or 'none'}; "
            f"{setting['verified_pages_everyone_reads']} verified pages now read by every active account; "
            f"{len(verified)} answers verified again in {timings['verify_s']:.0f} s)",
            flush=True,
        )

        forget_fits()
        if learnt_weights(model) is not None:
            raise SystemExit("a learnt quote ranker is still in use before the fit")
        started = time.monotonic()
        passes["before"] = {name: ask_all(reader, questions) for name, questions in sets.items()}
        timings["before_s"] = time.monotonic() - started
        print(f"(before: {sum(map(len, sets.values()))} questions in {timings['before_s']:.0f} s)", flush=True)

        started = time.monotonic()
        fit = quote_ranker_fit()
        timings["fit_s"] = time.monotonic() - started
        report = dict(fit.report) if fit is not None else {}
        fit_in_use = bool(fit is not None and fit.in_use)
        serving = learnt_weights(model) is not None
        held = report.get("held_out_first_unit_picked", {})
        print(
            f"(fit in {timings['fit_s']:.0f} s: {report.get('answers', 0)} answers, {report.get('units', 0)} units; "
            f"held out, first unit picked: learnt {held.get('learnt')}, shipped {held.get('shipped')}; "
            f"in use: {fit_in_use}; Ask's learnt_weights: {'the fit' if serving else 'none (shipped order)'})",
            flush=True,
        )
        started = time.monotonic()
        passes["after"] = {name: ask_all(reader, questions) for name, questions in sets.items()}
        timings["after_s"] = time.monotonic() - started
        print(f"(after: in {timings['after_s']:.0f} s)", flush=True)
        # Control: the shipped order again, warm caches. Any answer that differs from the first pass
        # changed for another reason than the ranker.
        forget_fits()
        started = time.monotonic()
        again = {name: ask_all(reader, questions) for name, questions in sets.items()}
        timings["control_s"] = time.monotonic() - started
        unstable = [
            b["qid"]
            for name in sets
            for b, c in zip(passes["before"][name], again[name], strict=True)
            if (b["quotes"], b["cited"], b["answered"]) != (c["quotes"], c["cited"], c["answered"])
        ]
        print(
            f"(control, shipped order again: {len(unstable)} answers differ from the first pass "
            f"{unstable or ''}, in {timings['control_s']:.0f} s)",
            flush=True,
        )
        transaction.set_rollback(True)  # the pages, accounts, answers and fits as they were found
    fitted.forget()  # no weights of the rolled-back fit left in this process

    left = {"fits": QuoteRankerFit.objects.count(), "verified_answers": VerifiedAnswer.objects.count()}
    if left != {k: found[k] for k in left}:
        print(f"warning: the database was found with {found} and is left with {left}")

    # --- report ---
    figures = {name: compare(passes["before"][name], passes["after"][name]) for name in sets}
    table = [
        [
            SETS[name],
            f["n"],
            f"{_pct(f['answered_before'])} / {_pct(f['answered_after'])}",
            f"{_pct(f['evidence_hit_before'])} ({f['hits_before']})",
            f"{_pct(f['evidence_hit_after'])} ({f['hits_after']})",
            len(f["quotes_changed"]),
            len(f["hits_gained"]),
            len(f["hits_lost"]),
        ]
        for name, f in figures.items()
    ]
    section(
        "Ask's evidence hit before / after the quote ranker is refitted from 40 verified answers",
        md_table(
            [
                "questions",
                "n",
                "answered before / after",
                "evidence hit before",
                "evidence hit after",
                "quotes changed",
                "hits gained",
                "hits lost",
            ],
            table,
        ),
        f"Extractive Ask as {reader.username}; model {model or 'none'}. Fit: {report.get('answers', 0)} verified "
        f"answers taught it ({report.get('units', 0)} units); held out (each answer left out in turn), the first "
        f"unit is a picked one: learnt {held.get('learnt')}, shipped {held.get('shipped')}; in use: {fit_in_use} "
        f"(needs >= {MIN_ANSWERS} answers and learnt >= shipped); served to Ask after the fit: {serving}. "
        f"Control (shipped order asked again after): {len(unstable)} answers differ from 'before'.",
    )
    for name, f in figures.items():
        if f["hits_gained"] or f["hits_lost"]:
            print(f"{name}: gained {f['hits_gained']}, lost {f['hits_lost']}")
    print(f"(bench: {time.monotonic() - bench_started:.0f} s)")
    write_results(
        "quote_ranker",
        {
            "model": model,
            "found": found,
            "setting": setting,
            "fit": {"report": report, "in_use": fit_in_use, "served": serving},
            "sets": {name: {"label": SETS[name], **f} for name, f in figures.items()},
            "control_unstable": unstable,
            "timings_s": timings,
            "rows": {
                name: [{"before": b, "after": a} for b, a in zip(before, passes["after"][name], strict=True)]
                for name, before in passes["before"].items()
            },
        },
    )


if __name__ == "__main__":
    main()
