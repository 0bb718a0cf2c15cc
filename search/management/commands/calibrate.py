"""python manage.py calibrate [--extra FILE.jsonl ...] [--only] [--json] [--ship]"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from search.calibration.calibration_set import CalibrationDataError
from search.calibration.services import calibrate, write_shipped
from search.embedding.embedders import LOCAL_MODEL_NAME, get_embedder


class Command(BaseCommand):
    help = "Fit the search and Ask decisions for the configured embedding model and store them as its policy."

    def add_arguments(self, parser):
        parser.add_argument("--extra", type=Path, action="append", default=[], help="your own labelled JSONL file")
        parser.add_argument("--only", action="store_true", help="fit on the --extra files alone, not the shipped set")
        parser.add_argument("--json", action="store_true", help="print the stored policy as JSON")
        parser.add_argument("--ship", action="store_true", help="write the bundled model's shipped policy file")

    def handle(self, *args, **options):
        embedder = get_embedder()
        if embedder is None:
            raise CommandError("embeddings are off (EMBEDDINGS_ENABLED=0): there is no model to calibrate")
        for path in options["extra"]:
            if not path.is_file():
                raise CommandError(f"{path}: no such file")
        if options["only"] and not options["extra"]:
            raise CommandError("--only fits on the --extra files: give at least one")
        try:
            if options["ship"]:
                if embedder.model_name != LOCAL_MODEL_NAME:
                    raise CommandError("--ship writes the bundled model's file; the configured model is another")
                self.stdout.write(f"wrote {write_shipped(embedder)}")
                return
            row = calibrate(embedder, options["extra"], shipped=not options["only"])
        except CalibrationDataError as exc:
            raise CommandError(str(exc)) from exc
        if options["json"]:
            body = {"model": row.model, "decisions": row.decisions, "report": row.report}
            self.stdout.write(json.dumps(body, ensure_ascii=False))
            return
        self.stdout.write(f"{row.model}: calibrated in {row.report['seconds']} s")
        for decision, body in row.decisions.items():
            for name, value in body["thresholds"].items():
                self.stdout.write(f"  {decision} {name}: {value}")
            figures = body["report"].get("held_out") or body["report"].get("at_threshold") or {}
            for name, value in figures.items():
                self.stdout.write(f"  {decision}, {name}: {value}")
