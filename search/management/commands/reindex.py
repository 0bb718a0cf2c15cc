"""python manage.py reindex [--all | --space SLUG | --page REF] [--wait]"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from handbook.models import Page
from search.services import index_enqueue_pages, index_pages_inline, wait_until_indexed, workers_available


class Command(BaseCommand):
    help = "Reindex pages (chunks, embeddings, summaries) through the workers, or here when none is running."

    def add_arguments(self, parser):  # type: ignore[no-untyped-def]
        scope = parser.add_mutually_exclusive_group(required=True)
        scope.add_argument("--all", action="store_true", help="every published page")
        scope.add_argument("--space", help="pages of one space (slug)")
        scope.add_argument("--page", help="one page (ref)")
        parser.add_argument("--wait", action="store_true", help="return once every page is indexed")
        parser.add_argument("--inline", action="store_true", help="index in this process even if workers run")
        parser.add_argument("--timeout", type=float, default=3600.0)

    def handle(self, *args, **options):  # type: ignore[no-untyped-def]
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
                index_pages_inline(pages.order_by("id"), progress=bar)
            self.stdout.write("Done.")
            return
        count = index_enqueue_pages(pages)
        self.stdout.write(f"Queued {count} page(s) for the workers.")
        if options["wait"]:
            with tqdm(total=len(ids), desc="index", unit="page", disable=quiet) as bar:
                left = wait_until_indexed(ids, timeout=options["timeout"], progress=bar)
            if left:
                raise CommandError(f"{len(left)} page(s) still not indexed after {options['timeout']:.0f}s")
            self.stdout.write("All pages indexed.")
