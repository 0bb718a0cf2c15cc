"""python manage.py link_sso USERNAME --issuer ISS --subject SUB [--unlink]

Links an account to a provider account, so that its next single sign-on opens
that account (and no other), or removes the link. The only way, with the admin,
to give an existing account to a provider account: a local one, a superuser, one
unlinked earlier, one single sign-on made before identities were stored. A
sign-in never opens an account by its name.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.identities import IdentityError, link, unlink


class Command(BaseCommand):
    help = "Link USERNAME to the provider account (issuer, subject), or --unlink it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--issuer", required=True, help="the provider's issuer (OIDC_ISSUER)")
        parser.add_argument("--subject", required=True, help="the person's `sub` at the provider")
        parser.add_argument("--unlink", action="store_true", help="remove the link instead")

    def handle(self, *args: Any, **options: Any) -> None:
        user = get_user_model().objects.filter(username=options["username"]).first()
        if user is None:
            raise CommandError(f"no such user: {options['username']!r}")
        issuer, subject = options["issuer"], options["subject"]
        if options["unlink"]:
            if not unlink(user=user, issuer=issuer, subject=subject):
                raise CommandError(f"{user.username!r} is not linked to that identity.")
            self.stdout.write(f"{user.username} is no longer linked to {subject} at {issuer}.")
            return
        try:
            link(user=user, issuer=issuer, subject=subject)
        except IdentityError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"{user.username} is linked to {subject} at {issuer}; their next sign-in opens it.")
