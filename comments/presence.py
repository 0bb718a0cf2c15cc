"""Who has a page open in the editor: a sorted set per page in the shared Redis cache.

Each open editor refreshes its entry (score: the time) every ``POLL_S``; an entry older than
``TTL_S`` no longer counts, so closing the editor needs no message: the entry expires. Only people
who may edit the page are recorded (the view loads it through ``editable_page``) and shown (checked
again on every read: someone who lost the right stops showing at once).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache

from comments.selectors import display_name
from handbook.models import Page

logger = logging.getLogger(__name__)

POLL_S = 20  # the editor's hx-trigger="every 20s" (templates/comments/_presence.html)
TTL_S = 60  # three missed polls and the entry is gone
MAX_SHOWN = 10


def _key(page_id: int) -> str:
    return cache.make_key(f"presence:page:{page_id}")


def _client() -> Any:
    # A sorted set needs Redis itself: the cache API has no atomic "add to a set with expiry".
    # The cache's own client shares its connection pool and key prefix.
    return cache._cache.get_client(write=True)  # type: ignore[attr-defined]


def presence_record(*, page_id: int, user_id: int, now: float | None = None) -> None:
    now = time.time() if now is None else now
    key = _key(page_id)
    try:
        pipe = _client().pipeline()
        pipe.zadd(key, {str(user_id): now})
        pipe.zremrangebyscore(key, "-inf", now - TTL_S)
        pipe.expire(key, TTL_S)
        pipe.execute()
    except Exception:  # Redis down: editing goes on, nobody is shown
        logger.warning("presence: could not record an editor of page %s", page_id, exc_info=True)


def present_user_ids(*, page_id: int, now: float | None = None) -> list[int]:
    now = time.time() if now is None else now
    try:
        members = _client().zrangebyscore(_key(page_id), now - TTL_S, "+inf")
    except Exception:
        logger.warning("presence: could not read the editors of page %s", page_id, exc_info=True)
        return []
    return [int(member) for member in members]


def other_editors(*, page: Page, user: Any, now: float | None = None) -> list[str]:
    """Display names of the others who have ``page`` open in the editor and may still edit it."""
    ids = [pk for pk in present_user_ids(page_id=page.pk, now=now) if pk != user.pk]
    people = get_user_model().objects.filter(pk__in=ids, is_active=True).order_by("first_name", "username")
    return [
        display_name(person)
        for person in people[: MAX_SHOWN * 2]
        if Page.objects.editable_by(person).filter(pk=page.pk).exists()
    ][:MAX_SHOWN]
