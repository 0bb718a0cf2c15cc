"""A small handbook for the comment tests: readers, editors, an owner and outsiders."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

REMOTE_WORK = (
    "# Remote work\n\nStaff may work from home up to three days a week.\n\n"
    "## Equipment\n\nA second screen is lent on request.\n"
)


@pytest.fixture(autouse=True)
def _clean_cache(settings):  # type: ignore[no-untyped-def]
    """No rate-limit counters or presence entries left over from an earlier test."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def handbook(make_user, make_space, make_page, no_embeddings) -> Any:  # type: ignore[no-untyped-def]
    """hr: read by "staff", edited by "hr-editors"; "Salary bands" in hr is restricted to "payroll";
    board: read and edited by "board" only."""
    hr = make_space("hr", viewers=("staff",), editors=("hr-editors",))
    board = make_space("board", viewers=("board",), editors=("board",))
    remote = make_page(hr, "Remote work", REMOTE_WORK)
    salary = make_page(hr, "Salary bands", "# Salary bands\n\nThe grid.\n", restricted_to=("payroll",))
    minutes = make_page(board, "Board minutes", "# Board minutes\n\nAcquisition.\n")
    return SimpleNamespace(
        hr=hr,
        board=board,
        remote=remote,
        salary=salary,
        minutes=minutes,
        reader=make_user("reader", "staff"),
        other_reader=make_user("other", "staff"),
        editor=make_user("editor", "staff", "hr-editors"),
        payroll_reader=make_user("payroll", "staff", "payroll"),
        outsider=make_user("outsider"),
        admin=make_user("admin", superuser=True),
    )
