"""Run the test OpenID Connect provider, or change it while it runs.

    python -m tests.oidc_provider.run serve --db FILE --port N --client-id ID --client-secret S \
        --redirect-uri URI [--user NAME:PASSWORD:GROUP,GROUP ...]
    python -m tests.oidc_provider.run set-groups --db FILE NAME GROUP,GROUP

``serve`` migrates a fresh sqlite file, creates the users and the confidential
client (authorization code, RS256, PKCE required, no consent screen) and serves
on 127.0.0.1 until killed. Its issuer is ``http://127.0.0.1:N/o``.
"""

from __future__ import annotations

import argparse
import os
import sys


def _setup(db: str, port: int | None = None) -> None:
    os.environ["DJANGO_SETTINGS_MODULE"] = "tests.oidc_provider.settings"
    os.environ["OP_DB"] = db
    if port is not None:
        os.environ["OP_ISSUER"] = f"http://127.0.0.1:{port}/o"
    key_file = db + ".key.pem"
    if not os.path.exists(key_file):
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import rsa

        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        with open(key_file, "wb") as handle:
            handle.write(pem)
    with open(key_file) as handle:
        os.environ["OP_RSA_KEY"] = handle.read()
    import django

    django.setup()


def _set_groups(username: str, groups: list[str]) -> None:
    from django.contrib.auth.models import Group, User

    user = User.objects.get(username=username)
    user.groups.set([Group.objects.get_or_create(name=name)[0] for name in groups])


def serve(args: argparse.Namespace) -> None:
    _setup(args.db, args.port)
    from django.contrib.auth.models import User
    from django.core.management import call_command
    from django.core.servers.basehttp import WSGIServer, run
    from django.core.wsgi import get_wsgi_application
    from oauth2_provider.models import Application

    call_command("migrate", verbosity=0)
    for spec in args.user:
        name, password, groups = (spec.split(":", 2) + [""])[:3]
        user = User.objects.create_user(username=name, password=password, email=f"{name}@example.com")
        user.first_name = name.title()
        user.save()
        _set_groups(name, [g for g in groups.split(",") if g])
    Application.objects.create(
        name="handbook",
        client_id=args.client_id,
        client_secret=args.client_secret,
        client_type=Application.CLIENT_CONFIDENTIAL,
        authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
        redirect_uris=args.redirect_uri,
        post_logout_redirect_uris=args.redirect_uri,
        algorithm=Application.RS256_ALGORITHM,
        skip_authorization=True,
    )
    print(f"provider ready on http://127.0.0.1:{args.port}", flush=True)
    run("127.0.0.1", args.port, get_wsgi_application(), threading=True, server_cls=WSGIServer)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--db", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--client-id", required=True)
    s.add_argument("--client-secret", required=True)
    s.add_argument("--redirect-uri", required=True)
    s.add_argument("--user", action="append", default=[])
    g = sub.add_parser("set-groups")
    g.add_argument("--db", required=True)
    g.add_argument("username")
    g.add_argument("groups")
    args = parser.parse_args(argv)
    if args.command == "serve":
        serve(args)
    else:
        _setup(args.db)
        _set_groups(args.username, [name for name in args.groups.split(",") if name])


if __name__ == "__main__":
    main(sys.argv[1:])
