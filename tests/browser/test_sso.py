"""Single sign-on end to end: Chromium signs in through a real OpenID Connect provider
(django-oauth-toolkit on loopback, in its own process and sqlite file), lands with the
provider's groups, and loses a space at the next sign-in once the provider drops the group."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.request import urlopen

import pytest

from tests.browser.conftest import Watched

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]
CLIENT_ID, CLIENT_SECRET = "handbook-test", "handbook-test-secret-0123456789"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Provider:
    def __init__(self, db: Path, port: int) -> None:
        self.db, self.port = db, port
        self.issuer = f"http://127.0.0.1:{port}/o"

    def set_groups(self, username: str, *groups: str) -> None:
        subprocess.run(
            [
                sys.executable,
                "-m",
                "tests.oidc_provider.run",
                "set-groups",
                "--db",
                str(self.db),
                username,
                ",".join(groups),
            ],
            cwd=ROOT,
            check=True,
            timeout=60,
        )


@pytest.fixture
def provider(live_server, tmp_path, settings) -> Iterator[Provider]:  # type: ignore[no-untyped-def]
    port = _free_port()
    db = tmp_path / "provider.sqlite3"
    log = open(tmp_path / "provider.log", "wb")  # noqa: SIM115 - lives as long as the process
    process = subprocess.Popen(
        [
            sys.executable, "-m", "tests.oidc_provider.run", "serve", "--db", str(db), "--port", str(port),
            "--client-id", CLIENT_ID, "--client-secret", CLIENT_SECRET,
            "--redirect-uri", f"{live_server.url}/oidc/callback/",
            "--user", "carol:carol-pass:idp-staff,idp-board",
            "--user", "admin:admin-idp-pass:idp-staff",
        ],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )  # fmt: skip
    op = Provider(db, port)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urlopen(f"{op.issuer}/.well-known/openid-configuration", timeout=2).read()  # noqa: S310 - loopback
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError((tmp_path / "provider.log").read_text()) from None
                time.sleep(0.3)
        settings.OIDC_RP_CLIENT_ID, settings.OIDC_RP_CLIENT_SECRET, settings.OIDC_ENABLED = (
            CLIENT_ID,
            CLIENT_SECRET,
            True,
        )
        settings.OIDC_ISSUER = op.issuer
        settings.OIDC_OP_AUTHORIZATION_ENDPOINT = f"{op.issuer}/authorize/"
        settings.OIDC_OP_TOKEN_ENDPOINT = f"{op.issuer}/token/"
        settings.OIDC_OP_USER_ENDPOINT = f"{op.issuer}/userinfo/"
        settings.OIDC_OP_JWKS_ENDPOINT = f"{op.issuer}/.well-known/jwks.json"
        settings.OIDC_RP_SCOPES = "openid email profile groups"
        settings.OIDC_PROVIDER_NAME = "Test IdP"
        settings.OIDC_GROUP_MAP = {"idp-staff": ["staff"], "idp-board": ["board"], "idp-payroll": ["payroll"]}
        settings.OIDC_STAFF_GROUPS, settings.OIDC_SUPERUSER_GROUPS = [], []
        yield op
    finally:
        process.terminate()
        process.wait(10)
        log.close()


@pytest.fixture
def sso_page(browser, live_server, settings_for_browser) -> Iterator[Watched]:  # type: ignore[no-untyped-def]
    """A browser page; the handbook and the provider are the only origins it may reach."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="en-GB")
    context.set_default_timeout(20_000)
    watch = Watched(context.new_page(), live_server.url)
    yield watch
    context.close()
    errors = [e for e in watch.console_errors if "404 (Not Found)" not in e]
    assert not errors, f"console errors: {errors}"


@pytest.fixture
def content(make_space, make_page) -> Any:  # type: ignore[no-untyped-def]
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    board = make_space("board", viewers=("board",), editors=("board",))
    make_page(hr, "Remote work", "# Remote work\n\nStaff may work from home up to three days a week.\n")
    make_page(board, "Board minutes", "# Board minutes\n\nThe board approved the acquisition of a competitor.\n")
    return {"hr": hr, "board": board}


def _sign_in(page: Any, base: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.get_by_role("link", name="Sign in with Test IdP").click()
    page.wait_for_url(f"{base}/")


def _search_titles(page: Any, base: str, query: str) -> str:
    page.goto(f"{base}/search/?q={query}")
    return page.locator("main").inner_text()


def test_sign_in_through_the_provider_and_lose_a_group_at_the_next_sign_in(sso_page, live_server, provider, content):  # type: ignore[no-untyped-def]
    from django.contrib.auth.models import User

    page, base = sso_page.page, live_server.url
    page.goto(f"{base}/accounts/login/")
    page.get_by_role("link", name="Sign in with Test IdP").click()
    page.wait_for_url(f"http://127.0.0.1:{provider.port}/login/**")
    page.get_by_label("Provider username").fill("carol")
    page.get_by_label("Provider password").fill("carol-pass")
    page.get_by_role("button", name="Sign in at the provider").click()
    page.wait_for_url(f"{base}/")

    carol = User.objects.get(username="carol")
    assert set(carol.groups.values_list("name", flat=True)) == {"staff", "board"}
    assert carol.email == "carol@example.com" and not carol.has_usable_password()
    identity = carol.sso_identities.get()  # she is her provider account, not the name "carol"
    assert identity.issuer == provider.issuer and identity.subject and identity.last_login_at
    home = page.locator("main").inner_text()
    assert "Hr" in home and "Board" in home
    assert "Board minutes" in _search_titles(page, base, "acquisition competitor")
    assert page.goto(f"{base}/spaces/board/board-minutes/").status == 200

    # The provider drops carol from the board; she signs in again (her provider session is still open).
    provider.set_groups("carol", "idp-staff")
    page.goto(f"{base}/")
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(f"{base}/accounts/login/")
    _sign_in(page, base)

    assert set(carol.groups.values_list("name", flat=True)) == {"staff"}
    assert User.objects.filter(username__startswith="carol").count() == 1  # the same account again
    home = page.locator("main").inner_text()
    assert "Hr" in home and "Board" not in home
    assert "Board minutes" not in _search_titles(page, base, "acquisition competitor")
    assert "Remote work" in _search_titles(page, base, "remote work")
    assert page.goto(f"{base}/spaces/board/board-minutes/").status == 404
    page.goto(f"{base}/ask/?q=Did+the+board+approve+an+acquisition%3F")
    assert "Board minutes" not in page.locator("main").inner_text()


def test_login_page_offers_the_provider_and_can_hide_the_password_form(sso_page, live_server, provider, settings):  # type: ignore[no-untyped-def]
    page, base = sso_page.page, live_server.url
    page.goto(f"{base}/accounts/login/")
    assert page.get_by_role("link", name="Sign in with Test IdP").is_visible()
    assert page.get_by_label("Password").is_visible()
    settings.LOCAL_LOGIN_ENABLED = False
    page.goto(f"{base}/accounts/login/")
    assert page.get_by_role("link", name="Sign in with Test IdP").is_visible()
    assert page.get_by_label("Password").count() == 0


def test_the_provider_s_username_never_opens_a_local_account_of_that_name(sso_page, live_server, provider, content):  # type: ignore[no-untyped-def]
    """A local "carol" (a password account, on the board) exists: the provider's carol gets her own account."""
    from django.contrib.auth.models import Group, User

    local = User.objects.create_user(username="carol", password="local-carol-password-1")
    local.groups.add(Group.objects.get_or_create(name="board")[0])
    page, base = sso_page.page, live_server.url
    page.goto(f"{base}/accounts/login/")
    page.get_by_role("link", name="Sign in with Test IdP").click()
    page.get_by_label("Provider username").fill("carol")
    page.get_by_label("Provider password").fill("carol-pass")
    page.get_by_role("button", name="Sign in at the provider").click()
    page.wait_for_url(f"{base}/")

    sso_carol = User.objects.get(sso_identities__issuer=provider.issuer)
    assert sso_carol.pk != local.pk and sso_carol.username == "carol-2"
    assert not local.sso_identities.exists()
    page.goto(f"{base}/accounts/profile/")
    assert "carol-2" in page.locator("main").inner_text()


def _provider_sign_in(page: Any, base: str, username: str, password: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.get_by_role("link", name="Sign in with Test IdP").click()
    page.get_by_label("Provider username").fill(username)
    page.get_by_label("Provider password").fill(password)
    page.get_by_role("button", name="Sign in at the provider").click()
    page.wait_for_url(f"{base}/")


def test_a_provider_admin_is_not_the_local_superuser_until_an_admin_links_them(
    sso_page, live_server, provider, content
):  # type: ignore[no-untyped-def]
    """The provider's "admin" gets an ordinary account of its own; after ``link_sso`` (the explicit
    step) the same provider account opens the local superuser."""
    from django.contrib.auth.models import User
    from django.core.management import call_command

    local = User.objects.create_superuser(username="admin", password="local-admin-password-1", email="a@example.com")
    page, base = sso_page.page, live_server.url
    _provider_sign_in(page, base, "admin", "admin-idp-pass")
    theirs = User.objects.get(sso_identities__issuer=provider.issuer)
    assert theirs.pk != local.pk and theirs.username == "admin-2"
    assert not theirs.is_superuser and not theirs.is_staff
    assert not local.sso_identities.exists()
    page.goto(f"{base}/admin/")
    assert "/admin/login/" in page.url  # the new account reaches no admin page

    subject = theirs.sso_identities.get().subject
    call_command("link_sso", "admin-2", issuer=provider.issuer, subject=subject, unlink=True)
    call_command("link_sso", "admin", issuer=provider.issuer, subject=subject)
    page.context.clear_cookies()
    _provider_sign_in(page, base, "admin", "admin-idp-pass")
    page.goto(f"{base}/admin/")
    assert "/admin/login/" not in page.url  # the linked provider account is the local superuser now
    assert local.sso_identities.get().subject == subject
    assert User.objects.filter(username__startswith="admin").count() == 2  # no third account was made
