"""Questions logged as Ask logs them, for the impact preview's tests: the web, API and browser ones
set up the same asked questions around a Remote work page and its draft."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from search.models import AskLog

REMOTE = "# Remote work\n\nStaff may work from home 2 days a week, agreed with their manager.\n"
DRAFT = "# Remote work\n\nStaff may work from home 3 days a week, agreed with their manager.\n"
DAYS = "How many days a week can I work from home?"


def log_asks(question: str, users: Iterable[Any], pages: list[Any], mode: str = "extractive") -> None:
    """One Ask log row per user, as Ask writes it: citing (and having reached) ``pages``."""
    for user in users:
        AskLog.objects.create(
            user=user,
            question=question,
            mode=mode,
            answer="…",
            citations=[{"ref": p.ref, "anchor": "", "revision": 1, "quote": "…"} for p in pages],
            passage_pages=[p.pk for p in pages],
            passage_spaces=list(dict.fromkeys(p.space_id for p in pages)),
        )
