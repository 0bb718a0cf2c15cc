"""python manage.py create_token USERNAME --name NAME [--scope read|ask] [--days N]

Prints the new token once, alone on the last line (scripts read that line).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.services import DEFAULT_DAYS, TokenError, token_create


class Command(BaseCommand):
    help = "Create a personal access token for USERNAME and print it once."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--name", required=True, help="what the token is for")
        parser.add_argument("--scope", choices=["read", "ask"], default="read", help="read (default) or ask")
        parser.add_argument("--days", type=int, default=DEFAULT_DAYS, help=f"lifetime (default {DEFAULT_DAYS})")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"no such user: {options['username']!r}")
        try:
            new = token_create(user=user, name=options["name"], scope=options["scope"], days=options["days"])
        except TokenError as exc:
            raise CommandError(str(exc)) from None
        expires = new.token.expires_at.strftime("%Y-%m-%d %H:%M %Z")
        self.stderr.write(f"Token {new.token.name!r} ({new.token.scope}) for {user.username}, expires {expires}.")
        self.stderr.write("It is shown only now; store it somewhere safe.")
        self.stdout.write(new.secret)
