"""Import pages from JSONL.

python manage.py load_corpus FILE.jsonl --space SLUG [--space-title T]
    [--viewer-group G]… [--editor-group G]… [--wait]

In a space that requires review, new and changed pages are not published: they wait for its
reviewers (``send_for_review``).
"""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from core.queues import workers_available
from handbook import page_work
from handbook.approvals.services import approval_request_open
from handbook.importing import corpus_import
from handbook.models import Page, Space
from handbook.services import space_create


class Command(BaseCommand):
    help = "Import pages from a JSONL file (one {id, title, body, lang} object per line) into a space."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--space", required=True, help="slug of the space (created if missing)")
        parser.add_argument(
            "--space-title",
            default=None,
            help="title of the space; an existing space keeps its title unless this is given "
            "(default for a new space: the slug in title case)",
        )
        parser.add_argument("--viewer-group", action="append", default=[], help="group that may read the space")
        parser.add_argument("--editor-group", action="append", default=[], help="group that may edit the space")
        parser.add_argument(
            "--wait",
            action="store_true",
            help="return once every page is indexed, its answer units stored and summarised, and the keyword "
            "statistics, word-translation vocabulary and language means are built from them",
        )
        parser.add_argument("--timeout", type=float, default=3600.0, help="seconds --wait waits at most")

    def handle(self, *args, **options):
        path: Path = options["file"]
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        title = options["space_title"]
        if title is not None and not title.strip():
            raise CommandError("--space-title is empty: give a title, or leave it out to keep the space's title")
        viewers = [Group.objects.get_or_create(name=name)[0] for name in options["viewer_group"]]
        editors = [Group.objects.get_or_create(name=name)[0] for name in options["editor_group"]]
        slug = options["space"]
        existing = Space.objects.filter(slug=slug).first()
        if title is None:
            # A rerun changes only what it is asked to: the space is renamed by --space-title alone.
            title = existing.title if existing else slug.replace("-", " ").title()
        space = space_create(slug=slug, title=title.strip(), viewer_groups=viewers, editor_groups=editors)
        if existing is not None and existing.title != space.title:
            self.stdout.write(f"Space {slug!r} renamed from {existing.title!r} to {space.title!r}.")
        with open(path, "rb") as handle:
            lines = sum(1 for line in handle if line.strip())
        with tqdm(total=lines, desc="import", unit="page", disable=options["verbosity"] == 0) as bar:
            report = corpus_import(path, space=space, on_line=lambda: bar.update(1))
        for number, message in report.errors:
            self.stderr.write(f"{path}:{number}: skipped: {message}")
        waiting = send_for_review(report.waiting)
        self.stdout.write(
            f"{report.created} created, {report.updated} updated, {report.unchanged} unchanged, "
            f"{len(report.errors)} bad line(s) skipped"
            + (f", {waiting} sent for review (the space requires it)" if waiting else "")
        )
        if options["wait"]:
            wait_for_index(self, report.page_ids, timeout=options["timeout"], quiet=options["verbosity"] == 0)


def send_for_review(page_ids: list[int]) -> int:
    """Open an approval request for each page the import saved for review (a space that requires it),
    asked by nobody: a command is no reviewer. How many pages now wait for a reviewer."""
    pages = Page.objects.filter(pk__in=page_ids).order_by("pk")
    return sum(approval_request_open(page=page, requested_by=None) is not None for page in pages)


def wait_for_index(command: BaseCommand, page_ids: list[int], *, timeout: float, quiet: bool) -> None:
    """Wait for each page's work (index, answer units, summary: by the workers, or here when none is
    running), then for what search and Ask build from many pages at once (statistics, vocabulary,
    language means: here), and say what was waited for. The first question asked after it returns
    gets the answer every later minute gives."""
    works = ", ".join(work.name for work in page_work.registered())
    if page_ids and workers_available():
        with tqdm(total=len(page_ids), desc="pages", unit="page", disable=quiet) as bar:
            left = page_work.wait_until_done(page_ids, timeout=timeout, progress=bar)
        if left:
            raise CommandError(f"{len(left)} page(s) still not indexed after {timeout:.0f}s (ids {left[:10]}…)")
    elif page_ids:
        todo_ids = page_work.pending(page_ids)
        pages = Page.objects.filter(id__in=todo_ids).order_by("id")
        command.stdout.write(f"No worker is running: indexing {len(todo_ids)} page(s) in this process.")
        with tqdm(total=len(todo_ids), desc="pages", unit="page", disable=quiet) as bar:
            page_work.run_inline(pages, progress=bar)
    command.stdout.write(f"Waited for each page's work ({works}) of {len(page_ids)} page(s).")
    wait_for_derived(command, quiet=quiet)
    command.stdout.write("All pages indexed.")


def wait_for_derived(command: BaseCommand, *, quiet: bool) -> None:
    """Bring every structure built from many pages in line with the pages now, with progress."""
    for structure in page_work.derived():
        bars: list[tqdm] = []  # made at the first report of work to do: nothing to do shows no empty bar

        def progress(done: int, total: int, bars: list[tqdm] = bars, name: str = structure.name) -> None:
            if not bars:
                if quiet or total <= 0:
                    return
                bars.append(tqdm(total=total, desc=name, unit="item", leave=False))
            bars[0].total, bars[0].n = total, done
            bars[0].refresh()

        try:
            said = structure.bring_up_to_date(progress)
        finally:
            for bar in bars:
                bar.close()
        command.stdout.write(f"Waited for the {structure.name}: {said}.")
