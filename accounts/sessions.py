"""Browser sessions: the engine that reads them (``SESSION_ENGINE``), and ending a person's.

Every request reads its session (the row behind the cookie) and then its user. Through the ORM
each read builds its SQL again, which costs more Python than the statement costs Postgres; the
same statement prepared once per connection (core/prepared.py) skips that, a share of a keystroke's
CPU worth keeping (bench/plain_django.py measures it). Same table, same encoding, same expiry test
as ``django.contrib.sessions.backends.db``: existing sessions stay valid, and writes (log in, log
out, rotation) are Django's own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from importlib import import_module
from types import SimpleNamespace
from typing import Any

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends import db
from django.db import connections, router
from django.utils import timezone

from core.prepared import prepared_cursor

# Keys as Django makes them (32 of lowercase letters and digits); anything else in the cookie (a NUL
# byte Postgres would refuse, a megabyte of junk) names no session and is never sent to SQL.
_KEY = re.compile(r"[a-z0-9]{8,40}")


class SessionStore(db.SessionStore):
    def _get_session_from_db(self) -> Any:
        if not self.session_key or not _KEY.fullmatch(self.session_key):
            self._session_key = None
            return None
        table = self.model._meta.db_table
        with prepared_cursor(connections[router.db_for_read(self.model)]) as cursor:
            cursor.execute(
                f"SELECT session_data FROM {table} WHERE session_key = %s AND expire_date > %s",  # noqa: S608 - a model's table
                [self.session_key, timezone.now()],
            )
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return None
        return SimpleNamespace(session_data=row[0])


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
