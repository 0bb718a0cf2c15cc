"""Import a folder of Markdown (a handbook as a static-site generator publishes it) into a space.

python manage.py import_markdown DIR --space SLUG [--space-title T]
    [--viewer-group G]… [--editor-group G]… [--wait] [--delete-missing]

In a space that requires review, new and changed pages are not published: they wait for its
reviewers (a command is nobody's reviewer), and the summary counts them.
"""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from handbook.management.commands.load_corpus import wait_for_index
from handbook.markdown_import.importer import MarkdownTreeImport
from handbook.models import Space
from handbook.services import space_create


class Command(BaseCommand):
    help = "Import a folder of Markdown files into a space: one page per file, folders as the page tree."

    def add_arguments(self, parser):
        parser.add_argument("directory", type=Path)
        parser.add_argument("--space", required=True, help="slug of the space (created if missing)")
        parser.add_argument("--space-title", default=None, help="title of a new space (default: from the slug)")
        parser.add_argument("--viewer-group", action="append", default=[], help="group that may read the space")
        parser.add_argument("--editor-group", action="append", default=[], help="group that may edit the space")
        parser.add_argument("--delete-missing", action="store_true", help="archive pages whose file is gone")
        parser.add_argument(
            "--wait",
            action="store_true",
            help="return once every page is indexed, its answer units stored and summarised, and the keyword "
            "statistics, word-translation vocabulary and language means are built from them",
        )
        parser.add_argument("--timeout", type=float, default=3600.0, help="seconds --wait waits at most")
        parser.add_argument("--max-examples", type=int, default=20, help="broken links and skipped files listed")

    def handle(self, *args, **options):
        root: Path = options["directory"]
        if not root.is_dir():
            raise CommandError(f"{root}: no such directory")
        viewers = [Group.objects.get_or_create(name=name)[0] for name in options["viewer_group"]]
        editors = [Group.objects.get_or_create(name=name)[0] for name in options["editor_group"]]
        slug = options["space"]
        space = Space.objects.filter(slug=slug).first()
        if space is None:
            title = (options["space_title"] or slug.replace("-", " ").title()).strip()
            space = space_create(slug=slug, title=title, viewer_groups=viewers, editor_groups=editors)
        else:  # an existing space keeps its title; groups are only added
            space.viewer_groups.add(*viewers)
            space.editor_groups.add(*editors)
        quiet = options["verbosity"] == 0
        job = MarkdownTreeImport(root, space=space, delete_missing=options["delete_missing"])
        pages = job.scan()
        job.files.clear()  # scanned again by run()
        with tqdm(total=len(pages), desc="import", unit="page", disable=quiet) as bar:
            job.progress = lambda _name: bar.update(1)
            report = job.run()
        self._report(report, options["max_examples"])
        if options["wait"]:
            wait_for_index(self, report.page_ids, timeout=options["timeout"], quiet=quiet)

    def _report(self, report, limit: int) -> None:
        for title, items in (("Archived", report.archived), ("File gone (use --delete-missing)", report.missing)):
            for name in items[:limit]:
                self.stdout.write(f"{title}: {name}")
        for name, target in report.broken_links[:limit]:
            self.stdout.write(f"Broken link: {name} → {target}")
        if len(report.broken_links) > limit:
            self.stdout.write(f"… and {len(report.broken_links) - limit} more broken link(s)")
        for name, reason in report.skipped[:limit]:
            self.stdout.write(f"Skipped: {name}: {reason}")
        if len(report.skipped) > limit:
            self.stdout.write(f"… and {len(report.skipped) - limit} more skipped file(s)")
        self.stdout.write(report.summary())
