"""python manage.py teaching export [--output FILE] [--space SLUG] | teaching import FILE

What editors taught the handbook, as JSONL: verified answers (``search/verified/transfer.py``).
An import checks every line first: one bad line and nothing is written, each bad line named.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from handbook.models import Space
from search.verified.transfer import TransferError, verified_export, verified_import


class Command(BaseCommand):
    help = "Export or import what editors taught the handbook (verified answers) as JSONL."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
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
        count = 0
        try:
            for row in verified_export(spaces):
                stream.write(json.dumps(row, ensure_ascii=False) + "\n")
                count += 1
        finally:
            if output:
                stream.close()
        self.stderr.write(f"exported {count} verified answers")

    def _import(self, path: Path) -> None:
        if not path.is_file():
            raise CommandError(f"no such file: {path}")
        rows, errors = [], []
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    rows.append((number, json.loads(line)))
                except json.JSONDecodeError as exc:
                    errors.append(f"line {number}: not JSON ({exc.msg})")
        if errors:
            raise CommandError("nothing imported: " + "; ".join(errors[:20]))
        try:
            counts = verified_import(rows)
        except TransferError as exc:
            raise CommandError(f"nothing imported: {exc}") from exc
        self.stdout.write(json.dumps(counts))
