"""Export a space as a zip of Markdown files (front matter, attachments beside the pages, relative links).

python manage.py export_space SLUG OUT.zip [--user USERNAME]

Without ``--user`` the zip holds every published page of the space, restricted ones included: the
command is run by whoever runs the server, who reads the whole database anyway (the same view as a
superuser's). With ``--user`` it holds what that person may read, like the space's "Export" button
gives an editor: use it to hand a zip to someone.
"""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from handbook.markdown_import.export import space_export
from handbook.models import Space


class Command(BaseCommand):
    help = (
        "Export the published pages of a space as Markdown, with their attachments, into a zip file: "
        "every page (restricted ones included), or with --user only what that user may read."
    )

    def add_arguments(self, parser):
        parser.add_argument("space", help="slug of the space")
        parser.add_argument("out", type=Path, help="zip file to write")
        parser.add_argument(
            "--user",
            default=None,
            help="export only the pages (and their files) this username may read; default: every published page",
        )

    def handle(self, *args, **options):
        space = Space.objects.filter(slug=options["space"]).first()
        if space is None:
            raise CommandError(f"no space {options['space']!r}")
        user = None
        if options["user"] is not None:
            User = get_user_model()
            user = User.objects.filter(**{User.USERNAME_FIELD: options["user"]}).first()
            if user is None:
                raise CommandError(f"no user {options['user']!r}")
            if not Space.objects.visible_to(user).filter(pk=space.pk).exists():
                # An empty zip would look like an empty space: say why instead.
                raise CommandError(f"{options['user']!r} cannot read the space {space.slug!r} (or is inactive)")
        out: Path = options["out"]
        partial = out.with_name(out.name + ".part")
        with open(partial, "wb") as handle:
            counts = space_export(space, handle, user=user)
        partial.replace(out)  # a half-written zip never carries the final name
        self.stdout.write(f"{counts['pages']} page(s) and {counts['attachments']} attachment(s) written to {out}")
