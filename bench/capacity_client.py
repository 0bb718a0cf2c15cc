"""The client side of bench/capacity.py: one signed-in browser, and what its requests took.

A browser sends what the search box in templates/base.html sends (``bench.capacity_server.search_box``):
- ``typing``: the box's own light request (``/search/typing/``, HX-Trigger the box, a keystroke
  number as static/js/search-box.js adds it); a 200 with the list, or a 204 when the server
  dropped it (a newer keystroke seen, or the browser gone);
- ``pause``: the full list a longer pause sends (HX-Trigger the pause element);
- ``submit``: Enter, the form's request.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import requests
from urllib3.exceptions import MaxRetryError, ProtocolError
from urllib3.util.retry import Retry

from bench.capacity_server import PASSWORD, SearchBox
from bench.common import percentile

_RESULTS_DIV = re.compile(r'<div id="results"')
_TYPING_LIST = re.compile(r"data-typing-query=")


@dataclass
class Sample:
    kind: str  # "submit", "pause" or "typing"
    ms: float
    ok: bool
    superseded: bool = False  # a later request of the same person left first (htmx aborts it)
    dropped: bool = False  # answered 204 by the server: no work done


@dataclass
class Recorder:
    samples: list[Sample] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, sample: Sample, error: str = "") -> None:
        with self.lock:
            self.samples.append(sample)
            if error and len(self.errors) < 10:
                self.errors.append(error)

    def stats(self, kind: str) -> dict[str, Any]:
        times = [s.ms for s in self.samples if s.kind == kind and s.ok]
        return {
            "requests": sum(1 for s in self.samples if s.kind == kind),
            "failures": sum(1 for s in self.samples if s.kind == kind and not s.ok),
            "dropped": sum(1 for s in self.samples if s.kind == kind and s.dropped),
            "p50_ms": round(percentile(times, 50), 1),
            "p95_ms": round(percentile(times, 95), 1),
        }


class ResendOnClosedConnection(Retry):
    """Send a GET once more when the connection closed before any answer came, as browsers do.

    A kept-alive connection the server closes (its keep-alive ran out) while a request is on its
    way fails with a reset or an empty answer; a browser then sends the request again on a new
    connection, and the person sees nothing. Anything else (a timeout, an error status) is not
    resent. ``on_resend`` counts the resends, which the tables report."""

    def __init__(self, *args: Any, on_resend: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_resend = on_resend

    def new(self, **kwargs: Any) -> ResendOnClosedConnection:
        retry = super().new(**kwargs)
        retry.on_resend = self.on_resend
        return retry

    def increment(self, method: str | None = None, url: str | None = None, *args: Any, **kwargs: Any) -> Retry:
        error = kwargs.get("error")
        if not isinstance(error, ProtocolError):  # refused, timed out, an error status: not resent
            raise MaxRetryError(kwargs.get("_pool"), url, error if isinstance(error, Exception) else None)
        retry = super().increment(method, url, *args, **kwargs)
        if self.on_resend is not None:
            self.on_resend()
        return retry


def browser_session(on_resend: Any = None) -> requests.Session:
    """A session with a browser's few connections to the server, sending a GET again once when a
    kept-alive connection closed under it (``ResendOnClosedConnection``)."""
    session = requests.Session()
    resend = ResendOnClosedConnection(total=1, connect=0, read=1, status=0, other=0, redirect=0,
                                      allowed_methods=frozenset({"GET"}), raise_on_status=False,
                                      on_resend=on_resend)  # fmt: skip
    session.mount("http://", requests.adapters.HTTPAdapter(pool_maxsize=4, max_retries=resend))
    return session


class Browser:
    """One signed-in person: a session (cookies) and the headers htmx sends."""

    def __init__(self, url: str, username: str, box: SearchBox) -> None:
        self.url, self.box = url, box
        self.keys = itertools.count(int(time.time() * 1000))  # keystroke numbers, as the page counts them
        self.resent = 0  # requests sent again after a kept-alive connection closed under them
        self.session = browser_session(on_resend=self._count_resend)
        self.session.get(f"{url}/accounts/login/", timeout=30)
        form = {"username": username, "password": PASSWORD, "csrfmiddlewaretoken": self.session.cookies["csrftoken"]}
        r = self.session.post(f"{url}/accounts/login/", data=form, headers={"Referer": f"{url}/accounts/login/"})
        if r.status_code != 200 or "/accounts/login/" in r.url:
            raise RuntimeError(f"login failed for {username}: {r.status_code} at {r.url}")

    def _count_resend(self) -> None:
        self.resent += 1

    def search(self, query: str, *, kind: str) -> tuple[float, bool, bool, str]:
        """(ms, ok, dropped, error) for one request of ``kind`` ("typing", "pause" or "submit")."""
        box = self.box
        headers = {"HX-Request": "true", "HX-Current-URL": f"{self.url}/search/"}
        params: dict[str, Any] = {box.trigger_name: query}
        path = "/search/"
        if kind == "typing":  # the box's own request: hx-trigger on the input
            headers.update({"HX-Trigger": box.trigger_id, "HX-Trigger-Name": box.trigger_name,
                            "HX-Target": "typing-list"})  # fmt: skip
            params["seq"] = next(self.keys)
            path = box.typing_path
        elif kind == "pause":  # a longer pause: the full list
            headers.update({"HX-Trigger": box.pause_id, "HX-Target": "results"})
        else:  # Enter: the form's request
            headers.update({"HX-Trigger": box.form_id, "HX-Target": "results"})
        started = time.perf_counter()
        try:
            r = self.session.get(f"{self.url}{path}", params=params, headers=headers, timeout=120)
        except requests.RequestException as exc:
            return (time.perf_counter() - started) * 1000, False, False, str(exc)[:200]
        ms = (time.perf_counter() - started) * 1000
        if kind == "typing":
            dropped = r.status_code == 204
            ok = dropped or (r.status_code == 200 and bool(_TYPING_LIST.search(r.text)))
            return ms, ok, dropped, "" if ok else f"typing: HTTP {r.status_code}"
        ok = r.status_code == 200 and bool(_RESULTS_DIV.search(r.text))
        return ms, ok, False, "" if ok else f"HTTP {r.status_code}{'' if r.status_code != 200 else ' without #results'}"


def resent(browsers: list[Browser]) -> int:
    """Requests the ``browsers`` have sent again so far (``ResendOnClosedConnection``)."""
    return sum(browser.resent for browser in browsers)
