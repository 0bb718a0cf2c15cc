"""Django's database sessions, read with one prepared statement.

Every request reads its session (the row behind the cookie) and then its user. Through the ORM
each read builds its SQL again, which costs more Python than the statement costs Postgres; the
same statement prepared once per connection (core/prepared.py) skips that, a share of a keystroke's
CPU worth keeping (bench/plain_django.py measures it). Same table, same encoding, same expiry test
as ``django.contrib.sessions.backends.db``: existing sessions stay valid, and writes (log in, log
out, rotation) are Django's own. Ending sessions: accounts/sessions.py.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

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
