"""Verified answers benchmark (issue #41, item 1's goals).

An editor verifies 40 dev questions of ``dev-handbooks.jsonl``: for each, the first answerable
question (file order) of a grade-2 page whose ``evidence`` is found among the page's answer units
(``statements.answer_units.page_units``); the editor picks those units, as in the picker. Then:

- **same**: the 40 questions as verified get the verified answer (target 100 %);
- **paraphrases** (``bench/data/verified_paraphrases.jsonl``, written blind, one or two per verified
  question, in its language) get it (target >= 85 %);
- **other questions on the same pages** (target <= 3 %): the dev questions (``dev-handbooks`` and
  ``dev-crosslang``) whose relevant pages include a verified page but which are not verified (nor the
  translation of a verified one), and ``bench/data/verified_other_questions.jsonl`` (other facts of
  the verified pages);
- **unrelated questions** (target 0 %): ``dev.jsonl`` (other corpora), the handbook dev questions
  touching no verified page (unanswerable ones included) and ``bench/data/no_match_queries*.txt``;
- **translations** of the verified questions (``dev-crosslang``), for information: the same
  question in the other language (no target);
- **readers without access**: a reader of other spaces only, and a staff reader of the handbook
  spaces whose verified pages are restricted to another group, ask the verified questions, their
  paraphrases and translations: the verified answers they get (must be 0) and the wordings of
  theirs remembered (must be 0);
- **time added to Ask**: ``search.verified.services.verified_for_asker`` over every question, with
  the question vector and the passages Ask's retrieval computes (so neither is counted: Ask has
  them already; the passages feed the second look at wordings a little farther), as Ask calls it
  without logging (``remember=False``) and as the logged path calls it
  (``remember=True``: a near wording is stored; rolled back after each question); target p95 <= 20 ms.

A sweep shows what each same-question similarity would give (from each question's nearest editor
wording), and the misses and wrong hits are listed with that similarity. The rates are measured
with that lookup; Ask itself (``answer_question``, extractive) is asked the
verified questions, paraphrases and other questions too, and must agree with the lookup.

It runs on its own database (``bench_verified``) holding only the pages it needs: the verified pages
(restricted to the readers' group), the other relevant pages of the questions on them and
``--distractors`` pages of the handbook corpora and the CNIL FAQ, written with ``page_create`` and
indexed inline; later runs reuse them. Each run withdraws every verified answer and verifies again.

Run: python -m bench.verified [--distractors 100]
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import re
import time
import unicodedata
from collections.abc import Iterable
from itertools import zip_longest
from pathlib import Path
from typing import Any

from bench.common import CORPORA, load_queries, md_table, mean, percentile, read_jsonl, section, setup, write_results

DATABASE = "bench_verified"
DATA = Path(__file__).resolve().parent / "data"
PARAPHRASES = DATA / "verified_paraphrases.jsonl"
OTHER_QUESTIONS = DATA / "verified_other_questions.jsonl"
NO_MATCH_FILES = sorted(DATA.glob("no_match_queries*.txt"))
HANDBOOKS = ("18f-handbook", "etalab-guides", "betagouv-communaute")
ELSEWHERE = "cnil-faq-fr"  # a space the reader without any handbook access reads
VERIFIED_COUNT = 40
MIN_UNIT_CHARS = 15
MAX_DISTRACTOR_CHARS = 3000

STAFF, EDITORS, INSIDERS, OUTSIDERS = (
    "staff",
    "bench-verified-editors",
    "bench-verified-insiders",
    "bench-verified-cnil",
)
EDITOR, READER = "bench-verified-editor", "bench-verified-reader"
SPACE_OUTSIDER, PAGE_OUTSIDER = "bench-verified-other-space", "bench-verified-restricted"

TARGETS = {"same": "100 %", "paraphrase": ">= 85 %", "other": "<= 3 %", "unrelated": "0 %"}


# --- choosing the questions ------------------------------------------------------------


def _norm(text: str) -> str:
    folded = unicodedata.normalize("NFKD", text.lower())
    folded = "".join(c for c in folded if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^0-9a-z]+", " ", folded).split())


def evidence_units(units: Iterable[Any], evidence: str) -> list[Any]:
    """The page's units that state the evidence: a unit inside the evidence, or the evidence inside a unit
    (markup and spacing aside)."""
    wanted = _norm(evidence)
    picked = []
    for unit in units:
        text = _norm(unit.text)
        if len(text) >= MIN_UNIT_CHARS and (text in wanted or wanted in text):
            picked.append(unit)
    return picked


def corpus_rows(corpora: Iterable[str]) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for corpus in corpora:
        path = CORPORA / f"{corpus}.jsonl"
        if not path.is_file():
            raise SystemExit(f"{path}: not found (set HANDBOOK_SHARED)")
        for row in read_jsonl(path):
            rows[row["id"]] = {**row, "corpus": corpus}
    return rows


def choose(queries: list[dict[str, Any]], rows: dict[str, dict[str, Any]]) -> list[tuple[dict[str, Any], str]]:
    """(question, its grade-2 page) for the first question of each page whose evidence is among the
    page's units, in file order, ``VERIFIED_COUNT`` of them."""
    from statements.answer_units import page_units

    chosen: list[tuple[dict[str, Any], str]] = []
    pages: set[str] = set()
    for q in queries:
        if not q.get("relevant") or not q.get("evidence"):
            continue
        for ref in (r for r, grade in q["relevant"].items() if grade == 2 and r in rows):  # noqa: PLR2004
            if evidence_units(page_units(rows[ref]["body"]), q["evidence"]):
                if ref not in pages:
                    pages.add(ref)
                    chosen.append((q, ref))
                break
        if len(chosen) == VERIFIED_COUNT:
            break
    return chosen


def _stable(ref: str) -> str:
    return hashlib.sha256(ref.encode()).hexdigest()


# --- the bench handbook ----------------------------------------------------------------


def distractor_pool(rows: dict[str, dict[str, Any]], taken: set[str]) -> list[str]:
    """Pages of no question, the corpora taking turns, each in a stable pseudo-random order; short
    pages only (indexing a long one takes 10-20 s on 2 cores)."""
    by_corpus: dict[str, list[str]] = {}
    for ref, row in rows.items():
        if ref not in taken and len(row["body"]) <= MAX_DISTRACTOR_CHARS:
            by_corpus.setdefault(row["corpus"], []).append(ref)
    queues = [sorted(refs, key=_stable) for _corpus, refs in sorted(by_corpus.items())]
    return [ref for turn in zip_longest(*queues) for ref in turn if ref is not None]


def build(
    rows: dict[str, dict[str, Any]], verified_refs: set[str], related_refs: set[str], distractors: int
) -> dict[str, Any]:
    """Spaces, groups, users and pages (indexed inline); pages already there are kept."""
    from django.contrib.auth.models import Group

    from bench.common import bench_user, refresh_index_statistics
    from config.celery import app
    from handbook.models import Page
    from handbook.services import page_create, space_create
    from search.indexing.pipeline import pages_needing_index

    groups = {name: Group.objects.get_or_create(name=name)[0] for name in (STAFF, EDITORS, INSIDERS, OUTSIDERS)}
    spaces = {
        corpus: space_create(slug=corpus, title=corpus, viewer_groups=[groups[STAFF]], editor_groups=[groups[EDITORS]])
        for corpus in HANDBOOKS
    }
    spaces[ELSEWHERE] = space_create(slug=ELSEWHERE, title=ELSEWHERE, viewer_groups=[groups[STAFF], groups[OUTSIDERS]])
    users = {
        "editor": bench_user(EDITOR, [STAFF, EDITORS, INSIDERS]),
        "reader": bench_user(READER, [STAFF, INSIDERS]),
        "space_outsider": bench_user(SPACE_OUTSIDER, [OUTSIDERS]),
        "page_outsider": bench_user(PAGE_OUTSIDER, [STAFF]),
    }
    pool = distractor_pool(rows, verified_refs | related_refs)
    wanted = [*sorted(verified_refs), *sorted(related_refs - verified_refs), *pool[:distractors]]
    existing = set(Page.objects.filter(ref__in=wanted).values_list("ref", flat=True))
    todo = [ref for ref in wanted if ref not in existing]
    started = time.monotonic()
    if todo:
        print(f"(writing and indexing {len(todo)} pages; about 5-10 s each on 2 cores)", flush=True)
        app.conf.task_always_eager = True  # index inline while writing
        try:
            for n, ref in enumerate(todo, 1):
                row = rows[ref]
                page_create(
                    space=spaces[row["corpus"]],
                    title=row["title"].strip()[:300] or ref,
                    body=row["body"],
                    language=row["lang"],
                    ref=ref,
                    restricted_to=[groups[INSIDERS]] if ref in verified_refs else [],
                )
                if n % 20 == 0:
                    print(f"  {n}/{len(todo)} pages in {time.monotonic() - started:.0f} s", flush=True)
        finally:
            app.conf.task_always_eager = False
        refresh_index_statistics()
    for page in Page.objects.filter(ref__in=verified_refs):  # restricted, also when written by an older run
        page.restricted_to_groups.add(groups[INSIDERS])
    pending = pages_needing_index().filter(ref__in=wanted).count()
    if pending:
        print(f"warning: {pending} bench pages still need indexing", flush=True)
    return {
        "users": users,
        "pages": len(wanted),
        "written": len(todo),
        "write_s": time.monotonic() - started,
        "verified_pages": len(verified_refs),
        "related_pages": len(related_refs - verified_refs),
        "distractor_pages": min(distractors, len(pool)),
    }


def verify_all(editor: Any, chosen: list[tuple[dict[str, Any], str]]) -> dict[str, dict[str, Any]]:
    """Withdraw every verified answer, then verify each chosen question with its evidence units."""
    from handbook.models import Page
    from search.models import VerifiedAnswer
    from search.verified.services import verify_answer
    from search.verified.wording import unit_hash
    from statements.answer_units import page_units

    VerifiedAnswer.objects.all().delete()
    done: dict[str, dict[str, Any]] = {}
    for q, ref in chosen:
        page = Page.objects.select_related("published_revision").get(ref=ref)
        units = evidence_units(page_units(page.published_revision.body or ""), q["evidence"])
        verified = verify_answer(
            editor=editor, question=q["query"], page=page, unit_hashes=[unit_hash(u.text) for u in units]
        )
        done[q["qid"]] = {"id": verified.pk, "ref": ref, "units": len(verified.units), "query": q["query"]}
    return done


# --- asking ----------------------------------------------------------------------------


def ask_vector(text: str, embedder: Any) -> list[float] | None:
    """The question vector Ask's retrieval passes on (``search.retrieval.pipeline.retrieve``): none for
    an empty query or one with phrases or exclusions (exact-match requests)."""
    from search.retrieval.query import parse_query
    from search.retrieval.query_embedding import query_embedding

    parsed = parse_query(text)
    if parsed.is_empty or parsed.phrases or parsed.excluded or embedder is None:
        return None
    return query_embedding(parsed.raw, embedder)


class Wordings:
    """The editors' wordings and their vectors: the nearest one to a question, and how near."""

    def __init__(self, by_id: dict[int, str]) -> None:
        import numpy as np

        from search.models import VerifiedQuestion

        rows = list(
            VerifiedQuestion.objects.filter(asked=False, embedding__isnull=False).values_list(
                "verified_id", "embedding"
            )
        )
        self.ids = [verified_id for verified_id, _v in rows]
        matrix = np.array([np.asarray(v, dtype=float) for _id, v in rows])
        self.matrix = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
        self.qid = by_id

    def nearest(self, vector: list[float] | None) -> tuple[str, float]:
        import numpy as np

        if vector is None or not self.ids:
            return "", float("nan")
        v = np.asarray(vector, dtype=float)
        sims = self.matrix @ (v / np.linalg.norm(v))
        best = int(np.argmax(sims))
        return self.qid.get(self.ids[best], "?"), float(sims[best])


_PASSAGES: dict[tuple[int, str], Any] = {}


def ask_passages(user: Any, question: str) -> Any:
    """Ask's passages for ``user`` (retrieval as Ask runs it, before the lookup: not timed here)."""
    from search.ask.passages import passages_for

    key = (user.pk, question)
    if key not in _PASSAGES:
        _PASSAGES[key] = passages_for(question, user)[1]
    return _PASSAGES[key]


def lookup_all(
    user: Any, questions: list[dict[str, Any]], embedder: Any, wordings: Wordings | None
) -> list[dict[str, Any]]:
    """Each question's verified answer for ``user`` as Ask gets it (nothing remembered), timed."""
    from search.verified.services import verified_for_asker

    out = []
    for q in questions:
        vector = q["_vector"]
        passages = ask_passages(user, q["query"])
        started = time.perf_counter()
        reply = verified_for_asker(user, q["query"], vector, embedder, remember=False, passages=passages)
        elapsed = (time.perf_counter() - started) * 1000
        nearest, similarity = wordings.nearest(vector) if wordings else ("", float("nan"))
        out.append(
            {
                "got": reply.verified_id if reply is not None else None,
                "same_wording": bool(reply and reply.same_wording),
                "lookup_ms": elapsed,
                "nearest_qid": nearest,
                "similarity": similarity,
            }
        )
    return out


def time_remembering(user: Any, questions: list[dict[str, Any]], embedder: Any) -> list[float]:
    """``verified_for_asker`` as Ask's logged path calls it (a near wording is stored), rolled back."""
    from django.db import transaction

    from search.verified.services import verified_for_asker

    timings = []
    for q in questions:
        passages = ask_passages(user, q["query"])
        with transaction.atomic():
            started = time.perf_counter()
            verified_for_asker(user, q["query"], q["_vector"], embedder, remember=True, passages=passages)
            timings.append((time.perf_counter() - started) * 1000)
            transaction.set_rollback(True)
    return timings


def ask_all(user: Any, questions: list[dict[str, Any]]) -> list[tuple[int | None, float]]:
    """(the verified answer's id, Ask's ms) through Ask itself (extractive, not logged)."""
    from search.ask.answers import answer_question

    out = []
    for q in questions:
        started = time.perf_counter()
        answer = answer_question(user=user, question=q["query"], rate_limit=False, use_cache=False, log=False)
        out.append((answer.verified.verified_id if answer.verified else None, (time.perf_counter() - started) * 1000))
    return out


# --- the sets --------------------------------------------------------------------------


def question_sets(chosen: list[tuple[dict[str, Any], str]]) -> dict[str, list[dict[str, Any]]]:
    """Every question asked, by set; ``expect``: the verified question whose answer it should get."""
    chosen_qids = {q["qid"] for q, _ref in chosen}
    verified_refs = {ref for _q, ref in chosen}
    handbooks = load_queries("dev-handbooks.jsonl")
    crosslang = load_queries("dev-crosslang.jsonl")
    faq = load_queries("dev.jsonl")

    def row(q: dict[str, Any], set_name: str, group: str, expect: str = "") -> dict[str, Any]:
        return {"id": q.get("qid") or q.get("id"), "query": q["query"], "set": set_name, "group": group,
                "lang": q.get("lang", ""), "expect": expect}  # fmt: skip

    same = [row(q, "same", "dev-handbooks", q["qid"]) for q, _ref in chosen]
    paraphrases = []
    for p in read_jsonl(PARAPHRASES):
        if p["qid"] not in chosen_qids:
            raise SystemExit(f"{PARAPHRASES.name}: {p['qid']} is not a verified question")
        paraphrases.append(row(p, "paraphrase", "written blind", p["qid"]))
    translated, other, unrelated = [], [], []
    for name, queries in (("dev-handbooks", handbooks), ("dev-crosslang", crosslang)):
        for q in queries:
            source = q.get("source_qid", q["qid"])
            if source in chosen_qids:
                if q["qid"] != source:
                    translated.append(row(q, "translated", name, source))
            elif verified_refs & set(q.get("relevant") or {}):
                other.append(row(q, "other", name))
            else:
                unrelated.append(row(q, "unrelated", f"{name} (no verified page)"))
    for o in read_jsonl(OTHER_QUESTIONS):
        if o["qid"] not in chosen_qids:
            raise SystemExit(f"{OTHER_QUESTIONS.name}: {o['qid']} is not a verified question")
        other.append(row(o, "other", "written (other facts)"))
    unrelated += [row(q, "unrelated", "dev.jsonl (other corpora)") for q in faq]
    for path in NO_MATCH_FILES:
        lines = path.read_text(encoding="utf-8").splitlines()
        texts = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
        unrelated += [
            row({"id": f"{path.stem}-{i}", "query": t}, "unrelated", "no-match queries") for i, t in enumerate(texts)
        ]
    return {"same": same, "paraphrase": paraphrases, "translated": translated, "other": other, "unrelated": unrelated}


def _rate(rows: list[dict[str, Any]], key: str = "right") -> float:
    return mean(1.0 if r[key] else 0.0 for r in rows)


def _timing_row(label: str, values: list[float]) -> list[Any]:
    return [label, len(values), percentile(values, 50), percentile(values, 95), max(values)]


def _pct(value: float) -> str:
    return f"{100 * value:.1f} %"


def similarity_sweep(sets: dict[str, list[dict[str, Any]]], current: float) -> list[list[Any]]:
    grid = sorted({round(current + d, 2) for d in (-0.06, -0.05, -0.04, -0.03, -0.02, -0.01, 0, 0.01, 0.02, 0.03)})
    out = []
    for t in grid:

        def gets_own(q: dict[str, Any], t: float = t) -> bool:
            return q["same_wording"] or (q["similarity"] >= t and q["nearest_qid"] == q["expect"])

        def gets_any(q: dict[str, Any], t: float = t) -> bool:
            return q["same_wording"] or q["similarity"] >= t

        out.append(
            [
                f"{t:.2f}" + (" (now)" if t == round(current, 2) else ""),
                *(
                    _pct(mean(1.0 if gets_own(q) else 0.0 for q in sets[k]))
                    for k in ("same", "paraphrase", "translated")
                ),
                *(_pct(mean(1.0 if gets_any(q) else 0.0 for q in sets[k])) for k in ("other", "unrelated")),
            ]
        )
    return out


# --- main ------------------------------------------------------------------------------


def bench_handbook(
    distractors: int,
) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]], list[tuple[dict[str, Any], str]], dict[str, Any]]:
    """The corpus rows, the dev questions, the 40 chosen for verifying (with their page refs) and the
    bench handbook built for them (``build``: pages written only when missing)."""
    rows = corpus_rows((*HANDBOOKS, ELSEWHERE))
    handbooks = load_queries("dev-handbooks.jsonl")
    chosen = choose(handbooks, rows)
    if len(chosen) < VERIFIED_COUNT:
        raise SystemExit(f"only {len(chosen)} questions have their evidence among their page's units")
    verified_refs = {ref for _q, ref in chosen}
    chosen_qids = {q["qid"] for q, _ref in chosen}
    related: set[str] = set()
    for q in [*handbooks, *load_queries("dev-crosslang.jsonl")]:
        relevant = set(q.get("relevant") or {})
        if relevant & verified_refs and q.get("source_qid", q["qid"]) not in chosen_qids:
            related |= relevant
    return rows, handbooks, chosen, build(rows, verified_refs, related & set(rows), distractors)


def main() -> None:  # noqa: PLR0915 - one bench, read top to bottom
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--distractors", type=int, default=100, help="pages of no question, for a realistic index")
    parser.add_argument("--no-ask", action="store_true", help="skip the check through Ask itself")
    args = parser.parse_args()
    bench_started = time.monotonic()
    setup(database=DATABASE)
    logging.getLogger("celery.app.trace").setLevel(logging.WARNING)  # one line per inline task otherwise
    from django.conf import settings

    from search.decisions.same_question import similarity_threshold
    from search.embedding.model_switch import query_embedder
    from search.models import VerifiedQuestion

    for name in ("SEARCH_RATE_LIMIT", "ASK_RATE_LIMIT"):  # the bench measures answers, not the limits
        setattr(settings, name, "1000000/m")

    rows, handbooks, chosen, built = bench_handbook(args.distractors)
    users = built["users"]
    embedder = query_embedder()
    model = embedder.model_name if embedder is not None else ""
    threshold = similarity_threshold(model) if model else float("nan")
    print(f"(handbook: {built['pages']} pages, {built['written']} written now in {built['write_s']:.0f} s; "
          f"model {model or 'none'}, same-question similarity >= {threshold})", flush=True)  # fmt: skip

    sets = question_sets(chosen)
    everything = [q for rows_ in sets.values() for q in rows_]
    started = time.monotonic()
    for q in everything:
        q["_vector"] = ask_vector(q["query"], embedder)
    print(f"({len(everything)} question vectors in {time.monotonic() - started:.0f} s)", flush=True)

    # Readers without access, before any answer is verified: how long their lookup takes with none there.
    from search.models import VerifiedAnswer

    VerifiedAnswer.objects.all().delete()
    access_sets = [*sets["same"], *sets["paraphrase"], *sets["translated"]]
    before = {}
    for key in ("space_outsider", "page_outsider"):
        lookup_all(users[key], access_sets, embedder, None)  # warm, as the pass after is
        before[key] = [r["lookup_ms"] for r in lookup_all(users[key], access_sets, embedder, None)]

    started = time.monotonic()
    verified = verify_all(users["editor"], chosen)
    verify_s = time.monotonic() - started
    by_id = {v["id"]: qid for qid, v in verified.items()}
    wordings = Wordings(by_id)

    # The rates: a warm pass, then the timed one.
    lookup_all(users["reader"], everything, embedder, None)
    results = lookup_all(users["reader"], everything, embedder, wordings)
    for q, r in zip(everything, results, strict=True):
        q.update(r)
        q["got_qid"] = by_id.get(r["got"], "?") if r["got"] else ""
        q["right"] = bool(q["expect"]) and q["got_qid"] == q["expect"]
        q["any"] = r["got"] is not None
    remembering = time_remembering(users["reader"], everything, embedder)
    lookup_ms = [q["lookup_ms"] for q in everything]

    # Readers without access, after: the same questions (their wordings would be remembered: remember=True).
    remembered_before = VerifiedQuestion.objects.filter(asked=True).count()
    access: dict[str, Any] = {}
    from search.verified.services import verified_for_asker

    for key in ("space_outsider", "page_outsider"):
        got, timings = 0, []
        for q in access_sets:
            passages = ask_passages(users[key], q["query"])
            started_q = time.perf_counter()
            reply = verified_for_asker(users[key], q["query"], q["_vector"], embedder, remember=True, passages=passages)
            timings.append((time.perf_counter() - started_q) * 1000)
            got += reply is not None
        access[key] = {
            "questions": len(access_sets),
            "verified_answers_got": got,
            "p50_ms_before": percentile(before[key], 50),
            "p50_ms_after": percentile(timings, 50),
            "p95_ms_before": percentile(before[key], 95),
            "p95_ms_after": percentile(timings, 95),
        }
    access_remembered = VerifiedQuestion.objects.filter(asked=True).count() - remembered_before

    # Through Ask itself: the verified questions, paraphrases and other questions (reader), and the
    # verified questions (both readers without access).
    ask: dict[str, Any] = {}
    if not args.no_ask:
        started = time.monotonic()
        asked = [*sets["same"], *sets["paraphrase"], *sets["other"]]
        answers = ask_all(users["reader"], asked)
        disagree = [q["id"] for q, (got, _ms) in zip(asked, answers, strict=True) if got != q["got"]]
        outsiders = {key: ask_all(users[key], sets["same"]) for key in ("space_outsider", "page_outsider")}
        ask = {
            "questions": len(asked),
            "disagree_with_lookup": disagree,
            "ask_p50_ms": percentile([ms for _got, ms in answers], 50),
            "ask_p95_ms": percentile([ms for _got, ms in answers], 95),
            "outsiders_got": {key: sum(got is not None for got, _ms in out) for key, out in outsiders.items()},
            "seconds": time.monotonic() - started,
        }
        access_remembered = VerifiedQuestion.objects.filter(asked=True).count() - remembered_before

    # --- report ---
    table = []
    for set_name, label in (
        ("same", "the verified questions"),
        ("paraphrase", "paraphrases (written blind)"),
        ("other", "other questions on the verified pages"),
        ("unrelated", "unrelated questions"),
        ("translated", "translations of the verified questions (dev-crosslang)"),
    ):
        in_set = sets[set_name]
        groups = sorted({q["group"] for q in in_set})
        key = "right" if set_name in ("same", "paraphrase", "translated") else "any"
        for group in ["", *groups] if len(groups) > 1 else [""]:
            chunk = [q for q in in_set if not group or q["group"] == group]
            wrong = sum(1 for q in chunk if q["any"] and not q["right"]) if key == "right" else ""
            table.append([
                label if not group else f"  {group}", len(chunk), sum(1 for q in chunk if q[key]),
                _pct(_rate(chunk, key)), wrong, TARGETS.get(set_name, "(information)") if not group else "",
            ])  # fmt: skip
    section(
        "Verified answers: who gets them",
        md_table(["questions", "n", "got the verified answer", "rate", "got another one", "target"], table),
        f"{len(verified)} answers verified by an editor in {verify_s:.1f} s (units picked: "
        f"{sum(v['units'] for v in verified.values())}); model {model}, same-question similarity >= {threshold}. "
        "'got another one': a verified answer, not the one of that question.",
    )
    same_para = [q["lookup_ms"] for q in everything if q["set"] in ("same", "paraphrase")]
    add = [
        _timing_row("lookup (Ask, not logged: remember=False)", lookup_ms),
        _timing_row("  of which: verified questions + paraphrases", same_para),
        _timing_row("lookup + remembering a near wording (logged Ask)", remembering),
    ]
    section(
        "Time added to Ask (ms; target p95 <= 20 ms)",
        md_table(["call", "n", "p50", "p95", "max"], add, digits=2),
        "verified_for_asker with the question vector Ask's retrieval already has; every question of every set.",
    )
    access_rows = [
        [key.replace("_", " "), a["questions"], a["verified_answers_got"], a["p50_ms_before"], a["p50_ms_after"],
         a["p95_ms_before"], a["p95_ms_after"]]
        for key, a in access.items()
    ]  # fmt: skip
    section(
        "Readers without access (must get 0)",
        md_table(
            [
                "reader",
                "questions",
                "verified answers got",
                "p50 ms before",
                "p50 ms after",
                "p95 ms before",
                "p95 ms after",
            ],
            access_rows,
            digits=2,
        ),  # fmt: skip
        "other space: reads only the CNIL FAQ; restricted: staff, reads the handbook spaces but not the verified "
        "pages (restricted to another group). Verified questions, paraphrases and translations; 'before': the "
        f"same lookups with no answer verified. Their wordings remembered: {access_remembered} (must be 0).",
    )
    if ask:
        print(
            f"\nThrough Ask (extractive, {ask['questions']} questions: verified, paraphrases, other): disagrees with "
            f"the lookup on {len(ask['disagree_with_lookup'])} {ask['disagree_with_lookup'] or ''}; Ask p50 "
            f"{ask['ask_p50_ms']:.0f} ms, p95 {ask['ask_p95_ms']:.0f} ms. Readers without access asking the "
            f"verified questions through Ask got: {ask['outsiders_got']}."
        )
    misses = [q for q in everything if q["set"] in ("same", "paraphrase") and not q["right"]]
    false_hits = [q for q in everything if q["set"] in ("other", "unrelated") and q["any"]]
    if misses:
        section(
            "Missed (verified questions and paraphrases)",
            md_table(
                ["id", "question", "nearest wording", "similarity", "got"],
                [[q["id"], q["query"], q["nearest_qid"], q["similarity"], q["got_qid"]] for q in misses],
            ),  # fmt: skip
        )
    if false_hits:
        section(
            "Got a verified answer they should not",
            md_table(
                ["set", "id", "question", "got (verified question)", "similarity"],
                [
                    [
                        q["set"],
                        q["id"],
                        q["query"],
                        f"{q['got_qid']}: {verified[q['got_qid']]['query']}",
                        q["similarity"],
                    ]
                    for q in false_hits
                ],
            ),  # fmt: skip
        )
    sweep = similarity_sweep(sets, threshold)
    section(
        "If the same-question similarity were another (from each question's nearest editor wording)",
        md_table(["least similarity", "same", "paraphrases", "translations", "other questions", "unrelated"], sweep),
        "same / paraphrases / translations: got their own answer; other / unrelated: got one. The exact "
        "wording always matches; a question whose nearest wording is another answer's counts as missed.",
    )
    print(f"(bench: {time.monotonic() - bench_started:.0f} s)")
    write_results(
        "verified",
        {
            "model": model,
            "threshold": threshold,
            "handbook": {k: v for k, v in built.items() if k != "users"},
            "verified": verified,
            "rates": table,
            "added_ms": {
                "lookup_p50": percentile(lookup_ms, 50),
                "lookup_p95": percentile(lookup_ms, 95),
                "remember_p50": percentile(remembering, 50),
                "remember_p95": percentile(remembering, 95),
            },
            "sweep": sweep,
            "access": access,
            "access_remembered": access_remembered,
            "ask": ask,
            "rows": [{k: v for k, v in q.items() if not k.startswith("_")} for q in everything],
        },
    )


if __name__ == "__main__":
    main()
