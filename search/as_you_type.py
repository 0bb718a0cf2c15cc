"""Search-as-you-type requests: which path a request takes, and when one is not worth answering.

The rule, as the search box in templates/base.html sends it:
- a short pause in typing (its ``delay:``) sends the box's own request to ``/search/typing/``: the
  light path, titles and headings by prefix (``search/retrieval/prefix.py``), a few milliseconds;
- a longer pause (the ``#q-pause`` element, ``delay:`` a second) sends the full hybrid list to
  ``/search/``, still as typing: no LLM call, nothing logged (``search/views.py``);
- Enter (the form), links, pagination and full pages are searches someone asked for.

A light request is dropped (204, htmx swaps nothing) when a newer keystroke of the same session has
already been seen, or when the browser has gone (htmx aborted it while it queued).
"""

from __future__ import annotations

import hashlib
import socket
from typing import Any

from config.numbers import AS_YOU_TYPE_SEQUENCE_MAX_DIGITS
from config.numbers import AS_YOU_TYPE_SEQUENCE_SECONDS as SEQUENCE_SECONDS
from core.cache import default_cache

LIGHT, PAUSE, SUBMITTED = "light", "pause", "submitted"
BOX_ID = "q"  # the search box: its own requests are the light path
PAUSE_ID = "q-pause"  # the element that sends the full list when typing pauses longer


def request_kind(*, htmx: bool, trigger: str | None, typing_path: bool) -> str:
    """Which path a search request takes (the rule above)."""
    if typing_path:
        return LIGHT if htmx else SUBMITTED  # the typing URL opened as a page: the search it stands for
    if htmx and trigger in (BOX_ID, PAUSE_ID):
        return PAUSE  # BOX_ID: a page loaded before the light path existed still sends its box here
    return SUBMITTED


def parse_sequence(value: str | None) -> int | None:
    """The browser's keystroke number (static/js/app.js), or None when absent or not a number."""
    return int(value) if value and value.isdigit() and len(value) <= AS_YOU_TYPE_SEQUENCE_MAX_DIGITS else None


def superseded(*, session_key: str, sequence: int | None) -> bool:
    """Record keystroke ``sequence`` of a session; True when a newer one has been seen already.

    Requests of one person reach different workers and threads, so an older keystroke can start
    after a newer one (it waited in another queue): it answers at once instead of doing the work.
    One round trip (``keep_newest``, atomic in Redis): the newest number stays, whatever the order.
    """
    if sequence is None or not session_key:
        return False
    key = "typing-seq:" + hashlib.sha256(session_key.encode()).hexdigest()[:32]
    try:
        return default_cache().keep_newest(key, sequence, SEQUENCE_SECONDS) > sequence
    except Exception:  # the cache is down: do the work rather than drop everyone's typing
        return False


def client_gone(meta: dict[str, Any]) -> bool:
    """True when the browser closed the connection (htmx aborts a request a newer one replaces).

    gunicorn hands its socket to the application (``gunicorn.socket``); a peek that reads the end
    of the stream means nobody waits for the answer. Other servers give no socket: never gone.
    """
    sock = meta.get("gunicorn.socket")
    if sock is None:
        return False
    try:
        return sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except (BlockingIOError, InterruptedError):
        return False  # connected, nothing more sent: the usual case
    except ValueError:
        return False  # a TLS socket (gunicorn serving HTTPS) takes no flags: no way to tell
    except OSError:
        return True
