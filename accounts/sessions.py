"""Ending a person's browser sessions, through whichever session engine ``SESSION_ENGINE`` names."""

from __future__ import annotations

from collections.abc import Iterable
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.db import router
from django.utils import timezone

# Sessions decoded per round trip while looking for a person's.
_SCAN_BATCH = 2000


def sessions_end(*, user_ids: Iterable[Any]) -> int:
    """Delete every live session signed in as one of ``user_ids``; how many were deleted.

    The table keys sessions by their secret only, and who a session is signed in as lives in its
    signed data: every live row is decoded, on the primary (a replica may not have a session made
    a moment ago yet). Meant for rare, deliberate cuts (a refused sign-in), not for a request path.
    """
    wanted = {str(user_id) for user_id in user_ids}
    if not wanted:
        return 0
    store_class = import_module(settings.SESSION_ENGINE).SessionStore
    model = store_class.get_model_class()
    rows = model.objects.using(router.db_for_write(model)).filter(expire_date__gt=timezone.now())
    decoder = store_class()
    ended = [
        key
        for key, data in rows.values_list("session_key", "session_data").iterator(chunk_size=_SCAN_BATCH)
        if str(decoder.decode(data).get(SESSION_KEY)) in wanted
    ]
    for key in ended:
        store_class().delete(key)  # through the store: a cached engine (cached_db) forgets its copy too
    return len(ended)
