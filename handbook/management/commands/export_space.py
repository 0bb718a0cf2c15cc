"""Export a space as a zip of Markdown files (front matter, attachments beside the pages, relative links).

python manage.py export_space SLUG OUT.zip
"""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from handbook.markdown_import.export import space_export
from handbook.models import Space


class Command(BaseCommand):
    help = "Export every published page of a space as Markdown, with its attachments, into a zip file."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        parser.add_argument("space", help="slug of the space")
        parser.add_argument("out", type=Path, help="zip file to write")

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
        space = Space.objects.filter(slug=options["space"]).first()
        if space is None:
            raise CommandError(f"no space {options['space']!r}")
        out: Path = options["out"]
        partial = out.with_name(out.name + ".part")
        with open(partial, "wb") as handle:
            counts = space_export(space, handle)
        partial.replace(out)  # a half-written zip never carries the final name
        self.stdout.write(f"{counts['pages']} page(s) and {counts['attachments']} attachment(s) written to {out}")
