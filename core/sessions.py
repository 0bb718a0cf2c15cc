"""Django's database sessions, read with one prepared statement.

Every request reads its session (the row behind the cookie) and then its user. Through the ORM
each read builds its SQL again (~0.3 ms of Python apiece, more than the statement itself); the
same statement prepared once per connection (core/prepared.py) costs a fifth of that. Same table,
same encoding, same expiry test as ``django.contrib.sessions.backends.db``: existing sessions stay
valid, and writes (log in, log out, rotation) are Django's own.

``sessions_end`` signs a person out of every browser at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

from django.contrib.auth import BACKEND_SESSION_KEY, SESSION_KEY
from django.contrib.sessions.backends import db
from django.db import connections, router
from django.utils import timezone

from core.prepared import prepared_cursor

# Keys as Django makes them (32 of lowercase letters and digits); anything else in the cookie (a NUL
# byte Postgres would refuse, a megabyte of junk) names no session and is never sent to SQL.
_KEY = re.compile(r"[a-z0-9]{8,40}")
# Sessions signed in before a sign-in backend of the handbook took over from Django's own name the
# one it extends: Django would refuse them (the name is no longer in AUTHENTICATION_BACKENDS).
_RENAMED_BACKENDS = {"django.contrib.auth.backends.ModelBackend": "accounts.backends.LocalBackend"}
# Sessions decoded per round trip while looking for a person's.
_SCAN_BATCH = 2000


class SessionStore(db.SessionStore):
    def load(self) -> dict[str, Any]:
        data: dict[str, Any] = super().load()
        backend = data.get(BACKEND_SESSION_KEY)
        if backend in _RENAMED_BACKENDS:
            data[BACKEND_SESSION_KEY] = _RENAMED_BACKENDS[backend]
        return data

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


def sessions_end(*, user_ids: Iterable[Any]) -> int:
    """Delete every live session signed in as one of ``user_ids``; how many were deleted.

    The table keys sessions by their secret only, and who a session is signed in as lives in its
    signed data: every live row is decoded, on the primary (a replica may not have a session made
    a moment ago yet). Meant for rare, deliberate cuts (a refused sign-in), not for a request path.
    """
    wanted = {str(user_id) for user_id in user_ids}
    if not wanted:
        return 0
    model = SessionStore.get_model_class()
    rows = model.objects.using(router.db_for_write(model)).filter(expire_date__gt=timezone.now())
    decoder = SessionStore()
    ended = [
        key
        for key, data in rows.values_list("session_key", "session_data").iterator(chunk_size=_SCAN_BATCH)
        if str(decoder.decode(data).get(SESSION_KEY)) in wanted
    ]
    deleted = 0
    for start in range(0, len(ended), _SCAN_BATCH):
        deleted += rows.filter(session_key__in=ended[start : start + _SCAN_BATCH]).delete()[0]
    return deleted
