"""python manage.py teaching export [--output FILE] [--space SLUG] | teaching import FILE

What editors taught the handbook, as JSONL: verified answers (``search/verified/transfer.py``)
and summary picks (``summaries/ticks_io.py``), one per line, each with its ``type``. An import
checks every line first: one bad line and nothing is written, each bad line named.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from config.numbers import IMPORT_ERRORS_SHOWN
from handbook.models import Space
from search.verified.transfer import TYPE as VERIFIED
from search.verified.transfer import TransferError, verified_export, verified_import
from summaries.ticks_io import TYPE as PICK
from summaries.ticks_io import TicksImportError, ticks_export, ticks_import


class Command(BaseCommand):
    help = "Export or import what editors taught the handbook (verified answers, summary picks) as JSONL."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)
        export = sub.add_parser("export", help="write JSONL to --output (default: standard output)")
        export.add_argument("--output", type=Path)
        export.add_argument("--space", action="append", default=[], help="only this space (repeatable)")
        load = sub.add_parser("import", help="read a JSONL file written by export")
        load.add_argument("file", type=Path)

    def handle(self, *args: Any, **options: Any) -> None:
        if options["action"] == "export":
            self._export(options["output"], options["space"])
        else:
            self._import(options["file"])

    def _export(self, output: Path | None, slugs: list[str]) -> None:
        spaces = None
        if slugs:
            spaces = list(Space.objects.filter(slug__in=slugs))
            missing = sorted(set(slugs) - {s.slug for s in spaces})
            if missing:
                raise CommandError(f"no such space: {', '.join(missing)}")
        stream = output.open("w", encoding="utf-8") if output else sys.stdout
        counts = {VERIFIED: 0, PICK: 0}
        try:
            for rows in (verified_export(spaces), ticks_export(spaces)):
                for row in rows:
                    stream.write(json.dumps(row, ensure_ascii=False) + "\n")
                    counts[row["type"]] += 1
        finally:
            if output:
                stream.close()
        self.stderr.write(f"exported {counts[VERIFIED]} verified answers, {counts[PICK]} summary picks")

    def _import(self, path: Path) -> None:
        if not path.is_file():
            raise CommandError(f"no such file: {path}")
        answers, picks, errors = [], [], []
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    errors.append(f"line {number}: not JSON ({exc.msg})")
                    continue
                kind = row.get("type") if isinstance(row, dict) else None
                if kind == PICK:
                    picks.append(row)
                elif kind == VERIFIED:
                    answers.append((number, row))
                else:
                    errors.append(f'line {number}: "type" must be "{VERIFIED}" or "{PICK}"')
        if errors:
            raise CommandError("nothing imported: " + "; ".join(errors[:IMPORT_ERRORS_SHOWN]))
        try:
            with transaction.atomic():  # both kinds, or neither
                counts = verified_import(answers)
                counts["summary_picks"] = ticks_import(picks)
        except TransferError as exc:
            raise CommandError(f"nothing imported: {exc}") from exc
        except TicksImportError as exc:
            raise CommandError(f"nothing imported: summary picks (counted among them): {exc}") from exc
        self.stdout.write(json.dumps(counts))
