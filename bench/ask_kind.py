"""The kind of answer asked, on the calibration material (no corpora needed).

The answer decision is fitted twice on the shipped calibration material, by the product's own fit
(``search/calibration/answer_fit.py``, out-of-fold by question): with the features the shipped decision
has, and with the ``kind_match`` feature added (``search/ask/asked_kind.py``: 1 when the unit holds the
kind asked, -1 when it holds none, 0 when nothing in particular is asked). For each, its held-out figures:
the balanced mean of answerable questions answered and unanswerable ones declined, the ``sure``
figures, and the right-kind share — among the questions answered (held out) that ask for a date, an
amount, a count or a person, the share whose lead unit holds that kind (``search/ask/asked_kind.py``).

Run: python -m bench.ask_kind   (a database for the calibration's lookups; no corpora)
"""

from __future__ import annotations

import json
from typing import Any

from bench.common import RESULTS, md_table, setup


def _fit(
    material: Any, handbook: Any, embedder: Any, without: tuple[str, ...] = (), more: tuple[str, ...] = ()
) -> dict[str, Any]:
    from search.calibration import answer_fit
    from search.decisions.answer import FEATURES

    answer_fit.FEATURES = tuple(f for f in FEATURES if f not in without) + more  # type: ignore[misc]
    try:
        decision = answer_fit.fit_answer_decision(material, handbook, embedder)
    finally:
        answer_fit.FEATURES = FEATURES  # type: ignore[misc]
    weights = dict(zip(decision.features, decision.weights, strict=True))
    return {"weights": weights, **decision.report, "decision": decision.as_json()}


HEADERS = [
    "features",
    "held-out mean",
    "answerable answered",
    "unanswerable declined",
    "sure precision",
    "answerable answered sure",
    "unanswerable answered sure",
    "right kind (questions)",
]


def _row(name: str, report: dict[str, Any]) -> list[Any]:
    held, sure = report["held_out"], report["sure"]
    kind = held["right_kind"]
    return [
        name,
        held["mean"],
        held["answerable_answered"],
        held["unanswerable_declined"],
        sure["precision"],
        sure["answerable_answered_sure"],
        sure["unanswerable_answered_sure"],
        f"{kind['share']:.3f} ({kind['questions']})",
    ]


def main() -> None:
    setup()
    from search.calibration.calibration_set import calibration_set
    from search.calibration.query_fit import calibration_handbook
    from search.embedding.embedders import get_embedder

    embedder = get_embedder()
    assert embedder is not None, "the calibration needs the embedding model"
    material = calibration_set([], shipped=True)
    handbook = calibration_handbook(material, embedder)  # units embedded once, for both fits
    reports = {
        "shipped features": _fit(material, handbook, embedder),
        "with kind_match": _fit(material, handbook, embedder, more=("kind_match",)),
    }
    print("\n### The kind of answer asked (calibration material, held out by question)\n")
    print(md_table(HEADERS, [_row(name, report) for name, report in reports.items()]))
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "ask_kind.json").write_text(json.dumps(reports, indent=2, ensure_ascii=False, default=float))
    print(f"\n(reports: {RESULTS / 'ask_kind.json'})")


if __name__ == "__main__":
    main()
