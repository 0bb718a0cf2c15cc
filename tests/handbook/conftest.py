"""Fixtures for the browser-view tests: a small handbook with readers, editors and outsiders."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

REMOTE_WORK = (
    "# Remote work\n\nStaff may work from home up to three days a week.\n\n"
    "## Equipment\n\nA second screen is lent on request.\n"
)
SALARY_BANDS = "# Salary bands\n\nThe confidential salary grid for engineering levels.\n"


@pytest.fixture(autouse=True)
def _fast_passwords_and_clean_cache(settings):  # type: ignore[no-untyped-def]
    """Cheap password hashing (users are made per test) and no rate-limit counters
    or cached answers left over from an earlier test."""
    from django.core.cache import cache

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def handbook(make_user, make_space, make_page, no_embeddings) -> Any:  # type: ignore[no-untyped-def]
    """hr: read by "staff", edited by "hr-editors"; it: read by "staff", edited by "it-editors".

    "Salary bands" in hr is restricted to the "payroll" group.
    """
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    it = make_space("it", viewers=("staff",), editors=("it-editors",))
    secret = make_space("board", viewers=("board",), editors=("board",))
    remote = make_page(hr, "Remote work", REMOTE_WORK)
    salary = make_page(hr, "Salary bands", SALARY_BANDS, restricted_to=("payroll",))
    vpn = make_page(it, "VPN access", "# VPN access\n\nInstall the VPN client before travelling.\n")
    minutes = make_page(secret, "Board minutes", "# Board minutes\n\nAcquisition of a competitor.\n")
    return SimpleNamespace(
        hr=hr,
        it=it,
        secret=secret,
        remote=remote,
        salary=salary,
        vpn=vpn,
        minutes=minutes,
        reader=make_user("reader", "staff"),
        payroll=make_user("payroller", "staff", "payroll"),
        editor=make_user("hreditor", "staff", "hr-editors"),
        admin=make_user("hradmin", "staff", "hr-editors", staff=True),
        both=make_user("both", "staff", "hr-editors", "it-editors"),
        outsider=make_user("outsider"),
    )


def url(page: Any, action: str = "") -> str:
    return page.get_absolute_url() + (f"{action}/" if action else "")
