"""python manage.py reindex [--all | --space SLUG | --page REF] [--wait]"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from config.numbers import REINDEX_TIMEOUT_S
from core.queues import BULK, bulk_work, workers_available
from handbook import page_work
from handbook.models import Page


class Command(BaseCommand):
    help = "Reindex pages (chunks, embeddings, summaries) through the workers, or here when none is running."

    def add_arguments(self, parser):
        scope = parser.add_mutually_exclusive_group(required=True)
        scope.add_argument("--all", action="store_true", help="every published page")
        scope.add_argument("--space", help="pages of one space (slug)")
        scope.add_argument("--page", help="one page (ref)")
        parser.add_argument("--wait", action="store_true", help="return once every page is indexed")
        parser.add_argument("--inline", action="store_true", help="index in this process even if workers run")
        parser.add_argument("--timeout", type=float, default=REINDEX_TIMEOUT_S)

    def handle(self, *args, **options):
        pages = Page.objects.published()
        if options["space"]:
            pages = pages.filter(space__slug=options["space"])
            if not pages.exists():
                raise CommandError(f"no published pages in space {options['space']!r}")
        elif options["page"]:
            pages = pages.filter(ref=options["page"])
            if not pages.exists():
                raise CommandError(f"no published page with ref {options['page']!r}")
        quiet = options["verbosity"] == 0
        ids = list(pages.values_list("id", flat=True))
        if options["inline"] or not workers_available():
            self.stdout.write(f"Indexing {len(ids)} page(s) in this process (no worker running).")
            with tqdm(total=len(ids), desc="index", unit="page", disable=quiet) as bar:
                for page in pages.order_by("id"):
                    for work in page_work.registered():
                        work.run_inline(page)
                    bar.update(1)
            self.stdout.write("Done.")
            return
        count = 0
        with bulk_work():  # reindexes gathered in groups of pages: full embedding batches
            for page in pages.select_related("published_revision").iterator():
                page_work.page_changed(page, queue=BULK)  # the index and the summary of each page
                count += 1
        self.stdout.write(f"Queued {count} page(s) for the workers.")
        if options["wait"]:
            with tqdm(total=len(ids), desc="index", unit="page", disable=quiet) as bar:
                left = page_work.wait_until_done(ids, timeout=options["timeout"], progress=bar)
            if left:
                raise CommandError(f"{len(left)} page(s) still not indexed after {options['timeout']:.0f}s")
            self.stdout.write("All pages indexed.")
