"""Ask learns from its readers: simulated Yes/No labels on dev questions, measured on held-out ones.

    python -m bench.reader_labels [--labels 200] [--seed 0] [--noise 0.1] [--readers 40] [--verified K]

The dev questions (``../shared/eval/dev-handbooks.jsonl`` and ``dev-crosslang.jsonl``) become
calibration material: the pages they grade 2 are chunked as the index chunks them
(``search/indexing/chunking.py``), the chunk holding a question's evidence sentence is its passage and
the evidence its answer; questions without an answer are unanswerable. The questions are split in two
by source question (a translated question goes with its original): readers label one half, the other
half is held out and never labelled.

Readers: ``--labels`` draws of (a labelled question, one of ``--readers`` people). Ask answers the
question as the current answer decision does (the shipped policy of the bundled model: its best unit
among the passages nearest to the question, in a handbook of the shipped and the dev passages); the
reader says Yes when that unit holds the evidence, No otherwise (on a no-answer: No when the question
has an answer), and a share ``--noise`` of readers answer the other way. Those labels go through the
product's rules (``search/calibration/reader_labels.teaching_material``: one vote per person and question,
agreement of two readers; an agreed No teaches its quote as a wrong answer, a negative unit) and its
refit (``search/calibration/reader_fit.candidate_fit``: the shipped
material and the labels, with the safety check on the shipped material). Both decisions, before and
after, are measured by the product's ``reader_fit.measured`` on the held-out questions: share of
answerable questions answered, of unanswerable ones declined, answered sure (sure coverage), and the
share of sure answers whose unit holds the evidence (sure precision).

``--verified K``: an editor verifies (the evidence sentence) K of the questions readers said No to on a
no-answer; results then go to ``reader_labels_verifiedK.json``.

It needs no corpora loaded: only a database (``bench_reader_labels``, migrated here) for the policy
and the text search configuration the calibration reads words with.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

if __package__ != "bench":
    raise SystemExit("run as: python -m bench.reader_labels ...")

from bench import common  # noqa: E402

DEV_FILES = ("dev-handbooks.jsonl", "dev-crosslang.jsonl")


def _shared() -> Path:
    return common.SHARED


def _dev_rows() -> list[dict[str, Any]]:
    return [row for name in DEV_FILES for row in common.read_jsonl(_shared() / "eval" / name)]


def _pages(rows: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    wanted = {ref for row in rows for ref, grade in row.get("relevant", {}).items() if grade >= 2}
    out: dict[str, dict[str, Any]] = {}
    for corpus in {ref.split(":", 1)[0] for ref in wanted}:
        for line in (_shared() / "corpora" / f"{corpus}.jsonl").read_text(encoding="utf-8").splitlines():
            doc = json.loads(line)
            if doc["id"] in wanted:
                out[doc["id"]] = doc
    return out


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _evidence(evidence: str, passages: list[Any]) -> tuple[Any, str] | None:
    """The passage holding the evidence, and the evidence as its text writes it (markup removed)."""
    wanted = _words(evidence)
    for passage in passages:
        if evidence in passage.text:
            return passage, evidence
        for sentence in re.split(r"(?<=[.!?:])\s+", passage.text):
            if len(_words(sentence)) > 20 and (wanted in _words(sentence) or _words(sentence) in wanted):
                return passage, sentence
    return None


def dev_material() -> tuple[list[Any], list[tuple[str, Any]]]:
    """The dev pages' passages, and each dev question as (its group, a calibration question)."""
    from search.calibration.calibration_set import CalibrationPassage, CalibrationQuestion
    from search.indexing.chunking import chunk_markdown

    rows = _dev_rows()
    passages: list[CalibrationPassage] = []
    for ref, doc in sorted(_pages(rows).items()):
        for chunk in chunk_markdown(doc["body"]):
            passages.append(
                CalibrationPassage(
                    f"dev:{ref}:{chunk.ordinal}",
                    doc.get("lang") or "en",
                    doc["title"],
                    chunk.heading,
                    " ".join(chunk.text.split()),
                )
            )
    questions: list[tuple[str, CalibrationQuestion]] = []
    for row in rows:
        group = row.get("source_qid") or row["qid"]
        if not row.get("evidence"):
            questions.append((group, CalibrationQuestion(row["query"], row["lang"], None)))
            continue
        refs = {ref for ref, grade in row["relevant"].items() if grade >= 2}
        found = _evidence(row["evidence"], [p for p in passages if p.id.split(":", 1)[1].rsplit(":", 1)[0] in refs])
        if found is not None:  # an evidence sentence the chunks do not hold (a table cell, a list) is left out
            questions.append((group, CalibrationQuestion(row["query"], row["lang"], found[0].id, found[1])))
    return passages, questions


class Remembering:
    """The embedder, each text embedded once for the whole run (the model is deterministic): the fit,
    the safety check and the held-out measure embed the same shipped texts again otherwise."""

    def __init__(self, embedder: Any) -> None:
        self._embedder = embedder
        self.model_name = embedder.model_name
        self._seen: dict[tuple[str, str], list[float]] = {}

    def _embed(self, kind: str, texts: list[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if (kind, t) not in self._seen]
        if missing:
            embed = self._embedder.embed_queries if kind == "query" else self._embedder.embed_passages
            self._seen.update({(kind, t): v for t, v in zip(missing, embed(missing), strict=True)})
        return [self._seen[(kind, t)] for t in texts]

    def embed_passages(self, texts: list[str]) -> list[list[float]]:
        return self._embed("passage", texts)

    def embed_queries(self, texts: list[str]) -> list[list[float]]:
        return self._embed("query", texts)

    def embed_query(self, text: str) -> list[float]:
        return self._embed("query", [text])[0]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._embedder, name)


def simulate(args: argparse.Namespace) -> dict[str, Any]:
    from search.calibration import reader_fit
    from search.calibration.answer_fit import _questions
    from search.calibration.calibration_set import CalibrationSet, calibration_set
    from search.calibration.query_fit import calibration_handbook
    from search.calibration.reader_labels import ReaderLabel, VerifiedLabel, teaching_material
    from search.decisions.answer import ANSWER
    from search.decisions.policy import forget, policy_for
    from search.embedding.embedders import local_embedder
    from search.models import DecisionPolicy

    started = time.monotonic()
    embedder: Any = Remembering(local_embedder())
    DecisionPolicy.objects.filter(model=embedder.model_name).delete()  # the shipped policy is "before"
    forget()
    policy = policy_for(embedder.model_name)
    assert policy is not None and policy.source == "shipped"
    current = policy.decisions[ANSWER]
    shipped = calibration_set()
    passages, questions = dev_material()
    groups = sorted({g for g, _q in questions})
    rng = random.Random(args.seed)
    rng.shuffle(groups)
    labelled_groups = set(groups[: len(groups) // 2])
    labelled = [q for g, q in questions if g in labelled_groups]
    held_out = [q for g, q in questions if g not in labelled_groups]

    def material(asked: list[Any]) -> CalibrationSet:
        return CalibrationSet(
            shipped.passages + tuple(passages),
            tuple(q for q in asked if q.passage is not None),
            tuple(q for q in asked if q.passage is None),
            shipped.no_match,
        )

    # What Ask answers to each labelled question today: the current decision's best unit.
    asked = material(labelled)
    by_id = {p.id: p for p in asked.passages}
    answers: dict[str, tuple[Any, bool] | None] = {}
    for q in _questions(asked, calibration_handbook(asked, embedder), embedder):
        pairs = list(zip(q.units, q.labels, strict=True))
        best = max(pairs, key=lambda pair: current.logit(pair[0].features().values()), default=None)
        shown = best is not None and current.probability(best[0].features().values()) >= current.threshold(ANSWER)
        answers[q.question.text] = (best[0], bool(best[1])) if shown and best is not None else None
    labels: list[ReaderLabel] = []
    for _draw in range(args.labels):
        question = rng.choice(labelled)
        person = f"reader-{rng.randrange(args.readers)}"
        flip = rng.random() < args.noise
        shown = answers.get(question.text)
        if shown is None:  # a no-answer: No when the question has an answer
            labels.append(ReaderLabel(person, question.text, question.language, (question.passage is None) != flip))
            continue
        unit, right = shown
        passage = by_id[unit.passage.ref]
        labels.append(ReaderLabel(person, question.text, question.language, right != flip, passage, unit.unit.text))
    # Editors verify up to ``--verified`` of the questions readers said No to on a no-answer.
    declined = list(dict.fromkeys(x.question for x in labels if x.passage is None and not x.helpful))
    verified = [
        VerifiedLabel(q.text, q.language, by_id[q.passage], q.answer)
        for q in labelled
        if q.passage is not None and q.text in declined[: args.verified]
    ]
    taught = teaching_material(labels, verified)
    new, figures = reader_fit.candidate_fit(embedder, taught, current)
    evaluated = material(held_out)
    handbook = calibration_handbook(evaluated, embedder)
    before = reader_fit.measured(current, evaluated, handbook, embedder)
    after = reader_fit.measured(new, evaluated, handbook, embedder)
    return {
        "params": vars(args),
        "questions": {"labelled": len(labelled), "held_out": len(held_out), "dev_passages": len(passages)},
        "labels": taught.report(),
        "safety_check_on_shipped": figures["shipped_material"] | {"accepted": figures["accepted"]},
        "thresholds": figures["thresholds"],
        "held_out": {"before": before, "after": after},
        "seconds": round(time.monotonic() - started, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--noise", type=float, default=0.1, help="share of readers who answer the other way")
    parser.add_argument("--readers", type=int, default=40)
    parser.add_argument("--verified", type=int, default=0, help="questions declined then verified by an editor")
    args = parser.parse_args()
    common.setup(database="bench_reader_labels")
    result = simulate(args)
    figures = ("answered", "declined", "sure_coverage", "sure_precision", "balanced_accuracy")
    held = result["held_out"]
    common.section(
        f"Answer decision before/after {args.labels} simulated reader labels (held-out dev questions)",
        common.md_table(
            ["decision", *figures], [[name, *(held[name][f] for f in figures)] for name in ("before", "after")]
        ),
        note=f"labels: {result['labels']}; held out: {result['questions']}",
    )
    safety = result["safety_check_on_shipped"]
    common.section(
        "Safety check on the shipped calibration material",
        common.md_table(
            ["figure", "before", "after", "tolerance"],
            [
                [f, safety["before"][f], safety["after"][f], safety["tolerance"].get(f, "—")]
                for f in reader_fit_figures()
            ],
        ),
        note=f"accepted: {safety['accepted']}",
    )
    common.write_results("reader_labels" + (f"_verified{args.verified}" if args.verified else ""), result)


def reader_fit_figures() -> tuple[str, ...]:
    from search.calibration.reader_fit import FIGURES

    return FIGURES


if __name__ == "__main__":
    main()
