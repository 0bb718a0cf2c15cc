"""Create the demo users, groups and spaces, and load the demo handbook (idempotent)."""

from __future__ import annotations

import json
from pathlib import Path

from django.contrib.auth.models import Group, User
from django.core.management.base import BaseCommand

from handbook import page_work
from handbook.importing import corpus_import
from handbook.management.commands.load_corpus import send_for_review
from handbook.services import space_create

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"

# username: (groups, is_superuser). Password: username + "-demo".
DEMO_USERS = {
    "admin": ([], True),
    "alice": (["staff", "hr"], False),
    "bob": (["staff"], False),
    "chloe": (["staff", "it"], False),
    "david": (["staff", "finance"], False),
}


class Command(BaseCommand):
    help = "Load the demo handbook: users, groups, spaces and ~30 pages in English and French."

    def handle(self, *args, **options):
        for username, (groups, superuser) in DEMO_USERS.items():
            user, created = User.objects.get_or_create(
                username=username, defaults={"is_superuser": superuser, "is_staff": superuser or bool(groups)}
            )
            if created:
                user.set_password(f"{username}-demo")
                user.save()
            user.groups.add(*[Group.objects.get_or_create(name=name)[0] for name in groups])
        spaces = json.loads((DEMO_DIR / "spaces.json").read_text())
        totals = [0, 0, 0]
        for spec in spaces:
            space = space_create(
                slug=spec["slug"],
                title=spec["title"],
                viewer_groups=[Group.objects.get_or_create(name=g)[0] for g in spec["viewer_groups"]],
                editor_groups=[Group.objects.get_or_create(name=g)[0] for g in spec["editor_groups"]],
            )
            report = corpus_import(DEMO_DIR / f"{spec['slug']}.jsonl", space=space)
            for number, message in report.errors:
                self.stderr.write(f"demo {spec['slug']}:{number}: {message}")
            if waiting := send_for_review(report.waiting):
                self.stdout.write(f"demo {spec['slug']}: {waiting} page(s) sent for review (the space requires it).")
            totals[0] += report.created
            totals[1] += report.updated
            totals[2] += report.unchanged
        self.stdout.write(f"Demo handbook: {totals[0]} pages created, {totals[1]} updated, {totals[2]} unchanged.")
        # Cross-language search translates query words through a vocabulary built from the handbook.
        # Queued behind the demo's indexing, the first searches have it, not only those after the
        # first periodic sweep (minutes later).
        if "index" in page_work.bulk_changed():
            self.stdout.write("Word-translation vocabulary: queued after the indexing.")
