"""Locust users for bench/load.py: log in once, then search the demo handbook.

Each simulated user logs in as its own account (``LOAD_USER_PREFIX`` + number,
created by bench/load.py) through the real login form with its CSRF token,
then searches with realistic English and French questions and keywords: full
pages (a first visit, a shared link), the search box's light list while typing
(``/search/typing/``, search/as_you_type.py) and the full list a pause sends.
A response counts as a failure unless it is a 200 with the results container
(or, for the light list, the list or a 204: the server dropped a keystroke).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import time
from typing import Any

from locust import HttpUser, between, events, task

USER_PREFIX = os.environ.get("LOAD_USER_PREFIX", "load")
PASSWORD = os.environ.get("LOAD_PASSWORD", "load-bench-password")
_numbers = itertools.count(1)

QUERIES = [
    # English: questions and keywords about the demo handbook
    "how many days of annual leave do I get?",
    "annual leave",
    "how do I claim travel expenses?",
    "expense claims receipts",
    "what is the password policy?",
    "password length",
    "how do I set up my laptop?",
    "who do I call on my first day?",
    "first week onboarding",
    "when is payroll paid each month?",
    "public holidays this year",
    "sick leave doctor's note",
    "how do I report a phishing email?",
    "security incident",
    "can I book business class for long flights?",
    "corporate card lost",
    "how do I request new software?",
    "whistleblowing anonymous report",
    "how many days can I work from home?",
    "meal allowance when travelling",
    # French
    "combien de jours de congés payés ai-je ?",
    "congés payés",
    "comment faire une note de frais ?",
    "notes de frais justificatifs",
    "comment activer l'authentification multifacteur ?",
    "VPN connexion à distance",
    "qu'est-ce que le télétravail ?",
    "télétravail jours par semaine",
    "indemnités journalières repas",
    "comment se passe le premier jour ?",
    "programme de parrainage",
    "quand ont lieu les entretiens annuels ?",
    "congés familiaux naissance",
    "classification des données confidentielles",
    "approbation des achats seuil",
    "peut-on réserver un vol en classe affaires ?",
    # Short and partial (search as you type)
    "leave",
    "congé",
    "laptop",
    "frais",
]

_RESULTS = re.compile(r'<div id="results"')
_TYPING_LIST = re.compile(r"data-typing-query=")

# Search requests only (logins excluded), for exact percentiles over both kinds of search.
_search_times: list[float] = []
_search_failures: list[str] = []


@events.request.add_listener
def _on_request(name: str, response_time: float, exception: Any = None, **_kwargs: Any) -> None:
    if name.startswith("/search/"):
        if not name.startswith("/search/typing/"):  # a keystroke's light list is not a search: its times apart
            _search_times.append(response_time)
        if exception is not None:
            _search_failures.append(str(exception)[:200])


@events.quitting.add_listener
def _write_search_summary(**_kwargs: Any) -> None:
    path = os.environ.get("LOAD_SEARCH_SUMMARY")
    if not path:
        return
    times = sorted(_search_times)

    def percentile(q: float) -> float:
        return times[min(len(times) - 1, int(q * len(times)))] if times else 0.0

    summary = {
        "requests": len(times),
        "failures": len(_search_failures),
        "p50_ms": round(percentile(0.50), 1),
        "p95_ms": round(percentile(0.95), 1),
        "max_ms": round(times[-1], 1) if times else 0.0,
        "failure_examples": _search_failures[:10],
    }
    with open(path, "w") as handle:
        json.dump(summary, handle)


class SearchUser(HttpUser):
    wait_time = between(0.5, 2.0)

    def on_start(self) -> None:
        self.username = f"{USER_PREFIX}{next(_numbers):02d}"
        self.random = random.Random(self.username)
        self.client.get("/accounts/login/", name="/accounts/login/ [GET]")
        token = self.client.cookies.get("csrftoken", "")
        with self.client.post(
            "/accounts/login/",
            data={"username": self.username, "password": PASSWORD, "csrfmiddlewaretoken": token},
            headers={"Referer": f"{self.host}/accounts/login/"},
            name="/accounts/login/ [POST]",
            catch_response=True,
        ) as response:
            if response.status_code != 200 or "/accounts/login/" in response.url:
                response.failure(f"login failed for {self.username}: {response.status_code} at {response.url}")

    def _check(self, response) -> None:  # type: ignore[no-untyped-def]
        if response.status_code != 200:
            response.failure(f"HTTP {response.status_code}")
        elif not _RESULTS.search(response.text):
            response.failure("no results container in the response")
        else:
            response.success()

    @task(3)
    def search_page(self) -> None:
        query = self.random.choice(QUERIES)
        with self.client.get("/search/", params={"q": query}, name="/search/ (page)", catch_response=True) as r:
            self._check(r)

    @task(5)
    def search_as_you_type(self) -> None:
        """A query typed a few keys at a time (the box's light list), then the full list of a pause."""
        query = self.random.choice(QUERIES)
        for end in range(min(3, len(query)), len(query) + 1, 3):
            self._keystroke(query[:end])
        with self.client.get(
            "/search/",
            params={"q": query},
            headers={"HX-Request": "true", "HX-Trigger": "q-pause", "HX-Current-URL": f"{self.host}/"},
            name="/search/ (htmx)",
            catch_response=True,
        ) as r:
            self._check(r)

    def _keystroke(self, text: str) -> None:
        self.keys = getattr(self, "keys", int(time.time() * 1000)) + 1  # as static/js/search-box.js numbers them
        with self.client.get(
            "/search/typing/",
            params={"q": text, "seq": self.keys},
            headers={"HX-Request": "true", "HX-Trigger": "q", "HX-Trigger-Name": "q"},
            name="/search/typing/ (htmx)",
            catch_response=True,
        ) as r:
            if r.status_code == 204 or (r.status_code == 200 and _TYPING_LIST.search(r.text)):
                r.success()
            else:
                r.failure(f"typing: HTTP {r.status_code}")
