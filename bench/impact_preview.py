"""Impact preview benchmark: how long "Preview the answers this changes" takes, and whether it tells
the truth.

A remote-work policy page is cited by 30 logged questions, each asked by ``MIN_ASKERS`` people (so
each may be listed), among ``--distractors`` pages of the 18F handbook. An editor's draft changes
some of its facts, rewords others, drops a section and adds one. Then:

- **time**: ``impact_preview`` of the draft as the editor, ``--runs`` times after one warm-up run,
  with the product's bounds (``MAX_PREVIEWED`` questions, ``BUDGET_S``) and with every question
  previewed (no bound), p50 and p95 (goal: p95 <= 3 s on 2 cores, bounded); and every question
  inside a transaction, where the "now" answers run before the draft's instead of beside them, with
  the CPU seconds it cost this process and its Postgres backend (wall time on a shared machine says
  as much about the other load as about the preview);
- **truth**: the draft is then published and indexed as a worker would (answer-unit vectors
  stored too, where the preview computed them), each previewed question is asked again as the
  editor, and its answer compared with the preview's "after" (same mode, text, and (page, quote)
  of every citation): the count of equal answers (goal: all);
- **nothing written**: the page's chunk rows and the Ask log are the same before and after the
  previews.

It runs on its own database (``bench_impact``); the distractors are kept between runs, the policy
page and its questions are made anew each run.

Run: python -m bench.impact_preview [--runs 5] [--distractors 60]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from bench.common import CORPORA, bench_user, md_table, percentile, section, setup, write_results

DATABASE = "bench_impact"
SPACE = "impact-bench"
REF = "impact-bench-remote-work"

POLICY = """# Remote work policy

## Days at home

Staff may work from home 2 days a week, agreed with their manager.
Remote days are recorded in the HR calendar by Friday of the week before.

## Core hours

Core hours are from 10:00 to 16:00, when everyone can be reached on chat.
Meetings are not scheduled outside core hours.

## Equipment

The company lends every remote worker a laptop and a second monitor.
Broken equipment is replaced by the IT desk within three working days.

## Home office budget

Each employee may claim a home office budget of 300 euros every two years.
Chairs and desks bought with the budget remain the employee's property.

## Internet costs

Internet costs are reimbursed at 20 euros a month on the payslip.
Mobile phone plans are not reimbursed.

## Working abroad

Working from another country is allowed for up to 10 days a year.
Working abroad longer needs the approval of the legal team.

## Security

Confidential documents are never printed at home.
The VPN must be on whenever company systems are used from home.

## Accidents

An accident while working from home is reported to HR within 48 hours.
The company's insurance covers accidents during agreed remote hours.

## Travel days

The office travel allowance is not paid for remote days.
Train tickets to the office are refunded at half price.

## Ending remote work

Either side may end a remote work agreement with one month's notice.
The laptop and monitor are returned to the IT desk when the agreement ends.
"""

# Facts changed, one section reworded, one dropped (travel days) and one added (coworking).
DRAFT = (
    POLICY.replace("2 days a week", "3 days a week")
    .replace("300 euros every two years", "400 euros every two years")
    .replace("20 euros a month", "25 euros a month")
    .replace("up to 10 days a year", "up to 20 days a year")
    .replace(
        "The company lends every remote worker a laptop and a second monitor.",
        "Remote workers get a laptop; monitors are bought with the home office budget.",
    )
    .split("## Travel days")[0]
    + """## Coworking spaces

Coworking spaces are paid by the company up to 150 euros a month.

## Ending remote work

Either side may end a remote work agreement with one month's notice.
The laptop and monitor are returned to the IT desk when the agreement ends.
"""
)

QUESTIONS = [
    "How many days a week can I work from home?",
    "Who agrees my remote days?",
    "When must remote days be recorded?",
    "What are the core hours?",
    "Can meetings be scheduled outside core hours?",
    "When must I be reachable on chat?",
    "Does the company lend a laptop for remote work?",
    "Do I get a second monitor at home?",
    "How fast is broken equipment replaced?",
    "How much is the home office budget?",
    "How often can I claim the home office budget?",
    "Who owns a chair bought with the home office budget?",
    "Are internet costs reimbursed?",
    "How much is paid for internet at home?",
    "Is my mobile phone plan reimbursed?",
    "Can I work from another country?",
    "How many days a year can I work abroad?",
    "Who approves working abroad for longer?",
    "Can I print confidential documents at home?",
    "When must the VPN be on?",
    "How do I report an accident while working from home?",
    "Does insurance cover accidents at home?",
    "Is the travel allowance paid on remote days?",
    "Are train tickets to the office refunded?",
    "How do I end a remote work agreement?",
    "How much notice ends remote work?",
    "What happens to the laptop when remote work ends?",
    "Where do I return the monitor?",
    "Is there a deadline to declare remote days?",
    "What is the remote work policy?",
]


def _distractors(count: int) -> list[dict[str, Any]]:
    path = CORPORA / "18f-handbook.jsonl"
    if not path.exists():
        return []
    pages = []
    with path.open() as lines:
        for line in lines:
            row = json.loads(line)
            if row.get("body") and len(row["body"]) < 20_000:
                pages.append(row)
            if len(pages) >= count:
                break
    return pages


def _world(distractors: int) -> tuple[Any, Any, Any]:
    """The space, its distractor pages (kept), the policy page and its logged questions (anew)."""
    from django.contrib.auth.models import Group

    from handbook.models import Page, Space
    from handbook.services import page_create, page_save, space_create
    from search.indexing.pipeline import pages_reindex
    from search.indexing.unit_vectors import pages_needing_units, pages_units_embed
    from search.insights.visibility import MIN_ASKERS
    from search.models import AskLog

    staff, editors = (Group.objects.get_or_create(name=n)[0] for n in ("impact-staff", "impact-editors"))
    space = Space.objects.filter(slug=SPACE).first() or space_create(
        slug=SPACE, title="Impact bench", viewer_groups=[staff], editor_groups=[editors]
    )
    have = set(Page.objects.filter(space=space).values_list("ref", flat=True))
    new = []
    for row in _distractors(distractors):
        ref = f"impact-bench:{row['id']}"
        if ref not in have:
            new.append(page_create(space=space, title=row["title"][:300], body=row["body"], ref=ref).pk)
    Page.objects.filter(ref=REF).delete()
    AskLog.objects.all().delete()
    page = page_create(space=space, title="Remote work policy", body=POLICY, ref=REF)
    pages_reindex([*new, page.pk])
    # Answer-unit vectors, as the worker stores them after indexing: Ask reads them for committed pages.
    pages_units_embed(list(pages_needing_units().filter(space=space).values_list("id", flat=True)))
    editor = bench_user("impact-editor", ["impact-staff", "impact-editors"])
    askers = [bench_user(f"impact-asker{n}", ["impact-staff"]) for n in range(MIN_ASKERS)]
    for question in QUESTIONS:
        for asker in askers:
            AskLog.objects.create(
                user=asker,
                question=question,
                mode=AskLog.Mode.EXTRACTIVE,
                answer="…",
                citations=[{"ref": REF, "anchor": "", "revision": 1, "quote": "…"}],
                passage_pages=[page.pk],
                passage_spaces=[space.pk],
            )
    draft = page_save(page=page, title=page.title, body=DRAFT, author=editor, publish=False).revision
    return page, editor, draft


def _chunk_rows(page: Any) -> list[tuple[Any, ...]]:
    from search.models import Chunk

    return list(
        Chunk.objects.filter(page=page).order_by("id").values_list("id", "revision_id", "content_hash", "search_vector")
    )


def _cpu_s() -> tuple[float, float]:
    """CPU seconds used so far by this process and by its Postgres backend (a local server): what a
    preview costs whatever else the machine runs, which its wall time on a shared machine does not say."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        (pid,) = cursor.fetchone()
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        backend = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except OSError:  # a remote server: its CPU is not ours to read
        backend = float("nan")
    return time.process_time(), backend


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--distractors", type=int, default=60)
    args = parser.parse_args()
    setup(database=DATABASE)

    from django.db import transaction

    from handbook.models import Page
    from handbook.services import page_publish
    from search.impact.preview import BUDGET_S, MAX_PREVIEWED, answer_for_preview, impact_preview
    from search.indexing.pipeline import page_reindex
    from search.indexing.unit_vectors import page_units_embed
    from search.models import AskLog

    page, editor, draft = _world(args.distractors)
    chunks, logs = _chunk_rows(page), AskLog.objects.count()
    impact_preview(user=editor, page=page, revision=draft)  # warm-up: the model, statistics, plans

    modes: dict[str, dict[str, Any]] = {
        "bounded": {},
        "every question": {"limit": len(QUESTIONS), "budget_s": 600.0},
        # Inside a caller's transaction the "now" answers cannot run beside the draft's: the same
        # preview one step after the other, for comparison.
        "every question, one after the other": {"limit": len(QUESTIONS), "budget_s": 600.0, "in_transaction": True},
    }
    timings: dict[str, list[float]] = {name: [] for name in modes}
    cpu: list[tuple[float, float]] = []  # (this process, its Postgres backend) of the one-after-the-other preview
    previews: dict[str, Any] = {}
    for _run in range(args.runs):
        for name, options in modes.items():
            options = dict(options)
            in_transaction = options.pop("in_transaction", False)
            wrap = transaction.atomic() if in_transaction else contextlib.nullcontext()
            started = time.perf_counter()
            with wrap:
                before = _cpu_s() if in_transaction else (0.0, 0.0)
                previews[name] = impact_preview(user=editor, page=page, revision=draft, **options)
                if in_transaction:
                    after = _cpu_s()
                    cpu.append((after[0] - before[0], after[1] - before[1]))
            timings[name].append(time.perf_counter() - started)
    page.refresh_from_db()
    untouched = (
        _chunk_rows(page) == chunks and AskLog.objects.count() == logs and page.published_revision_id != draft.pk
    )

    page_publish(page=page, revision=draft, author=editor)
    page_reindex(page_id=page.pk, revision_id=draft.pk)
    page_units_embed(page_id=page.pk)  # what the worker does next
    full = previews["every question"]
    asked = [row for row in full.rows if not row.verified]
    equal = 0
    unequal = []
    for row in asked:
        now = answer_for_preview(editor, row.question)
        if now is not None and row.after is not None and now.same_answer(row.after):
            equal += 1
        else:
            unequal.append(row.question)
    marks: dict[str, int] = {}
    for row in full.rows:
        marks[row.mark] = marks.get(row.mark, 0) + 1

    rows = [
        [
            name,
            len(values),
            percentile(values, 50),
            percentile(values, 95),
            len(previews[name].rows),
            previews[name].not_previewed,
        ]
        for name, values in timings.items()
    ]
    section(
        "Impact preview of a page cited by 30 logged questions (seconds)",
        md_table(["preview", "runs", "p50", "p95", "rows", "not previewed"], rows, digits=2),
        f"Bounded: MAX_PREVIEWED={MAX_PREVIEWED}, BUDGET_S={BUDGET_S}. Goal: p95 <= 3 s bounded.",
    )
    section(
        "CPU of the preview, every question one after the other (seconds, median)",
        md_table(
            ["this process", "its Postgres backend", "together"],
            [
                [
                    percentile([c[0] for c in cpu], 50),
                    percentile([c[1] for c in cpu], 50),
                    percentile([sum(c) for c in cpu], 50),
                ]
            ],
            digits=2,
        ),
    )
    section(
        "Preview against the answers after publishing",
        md_table(["previewed", "equal", "unequal", "nothing written"], [[len(asked), equal, len(unequal), untouched]]),
        "Marks: " + ", ".join(f"{k} {v}" for k, v in sorted(marks.items())),
    )
    write_results(
        "impact_preview",
        {
            "questions": len(QUESTIONS),
            "distractor_pages": Page.objects.filter(space__slug=SPACE).count() - 1,
            "max_previewed": MAX_PREVIEWED,
            "budget_s": BUDGET_S,
            "timings_s": {
                name: {"runs": values, "p50": percentile(values, 50), "p95": percentile(values, 95)}
                for name, values in timings.items()
            },
            "cpu_s_one_after_the_other": {
                "runs": [{"process": c[0], "postgres_backend": c[1]} for c in cpu],
                "p50_together": percentile([sum(c) for c in cpu], 50),
            },
            "not_previewed": {name: p.not_previewed for name, p in previews.items()},
            "marks": marks,
            "equal_after": {"previewed": len(asked), "equal": equal, "unequal": unequal},
            "nothing_written": untouched,
        },
    )


if __name__ == "__main__":
    main()
