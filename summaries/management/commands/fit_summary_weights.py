"""``manage.py fit_summary_weights``: fit the shipped sentence weights from ``summaries/data/``.

The pages there are generic workplace pages, English and French, each with the units an editor
ticked. The weights and their fit report are written to ``summaries/shipped_weights.json``,
which serves until editors have ticked enough pages (``scorer_fit.MIN_TICKED_PAGES``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from statements.answer_units import page_units
from summaries.features import unit_hash
from summaries.fitting import fit_report, fit_scorer, held_out_f1, lesson
from summaries.learnt import SHIPPED_WEIGHTS

DATA = Path(__file__).resolve().parents[2] / "data" / "ticked_pages.jsonl"


class Command(BaseCommand):
    help = "Fit the shipped summary sentence weights from summaries/data/ticked_pages.jsonl."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--data", default=str(DATA))
        parser.add_argument("--out", default=str(SHIPPED_WEIGHTS))

    def handle(self, *args: Any, **options: Any) -> None:
        lessons = []
        with open(options["data"], encoding="utf-8") as handle:
            for number, line in enumerate(handle, 1):
                if not line.strip():
                    continue
                page = json.loads(line)
                texts = {unit_hash(u.text) for u in page_units(page["body"])}
                picked = {unit_hash(t) for t in page["ticks"]}
                if not picked <= texts:
                    raise CommandError(f"line {number} ({page['title']}): a tick is not a unit of the page")
                found = lesson(
                    key=page["title"], markdown=page["body"], title=page["title"], language=page["lang"], picked=picked
                )
                if found is not None:
                    lessons.append(found)
        scorer = fit_scorer(lessons, "")
        report = fit_report(lessons, scorer, held_out_f1(lessons, None), source=Path(options["data"]).name)
        data = {"weights": scorer.as_dict(), "report": report}
        Path(options["out"]).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        self.stdout.write(json.dumps(report["held_out_f1"]))
        self.stdout.write(f"{len(lessons)} pages, weights written to {options['out']}")
