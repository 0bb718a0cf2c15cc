"""python manage.py ready [--timeout S]: wait until search and Ask answer as they will every later minute.

``make run`` prints "Ready" after this: every published page indexed (chunks and vectors), its
answer units stored and its summary written (by the workers, or here when none is running), then
the keyword statistics, the word-translation vocabulary and the language means built from them.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand

from handbook.management.commands.load_corpus import wait_for_index
from handbook.models import Page


class Command(BaseCommand):
    help = "Wait until every published page's work and everything search and Ask build from the pages is done."

    def add_arguments(self, parser):
        parser.add_argument("--timeout", type=float, default=3600.0, help="seconds to wait for the pages at most")

    def handle(self, *args, **options):
        ids = list(Page.objects.published().order_by("id").values_list("id", flat=True))
        wait_for_index(self, ids, timeout=options["timeout"], quiet=options["verbosity"] == 0)
