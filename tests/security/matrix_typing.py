"""The search-as-you-type paths in the permission matrix (search/as_you_type.py).

What a keystroke shows (titles, headings, their pages' titles and links) must name only pages the
typist may read, through the selector and over HTTP: the light list and the full list a longer
pause sends. A typed line is the query and its prefixes, as the box sends them one key at a time.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from search.as_you_type import PAUSE_ID

HX_LIGHT = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TRIGGER": "q", "HTTP_HX_TRIGGER_NAME": "q"}
HX_PAUSE = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TRIGGER": PAUSE_ID}


def typed_lines(query: str) -> list[str]:
    """The query, a short prefix and its first words alone (a title's word is a likely line)."""
    return list(dict.fromkeys([query, query[:3], *query.split()[:3]]))


def typist(world: Any, username: str) -> Any:
    """The user's test client, logged in on first use and kept in the world (``World.clients``)."""
    from django.test import Client

    client = world.clients.get(username)
    if client is None:
        client = world.clients[username] = Client()
        if world.users[username].is_active:
            client.force_login(world.users[username])
    return client


def typing_findings(world: Any, username: str, query: str) -> list[tuple[str, str]]:
    """(path, detail) for each page id or canary a typist must not see."""
    from search.retrieval.prefix import prefix_matches
    from tests.security.matrix import _canaries_in  # here: matrix imports this module at its top

    user = world.users[username]
    expected = world.expected_visible(username)
    found: list[tuple[str, str]] = []
    client = typist(world, username)
    for line in typed_lines(query):
        matches = prefix_matches(user=user, text=line)
        hits = [*matches.pages, *matches.headings]
        shown = {h.page_id for h in hits if h.page_id in world.pages}
        if not shown <= expected:
            found.append(("typing.prefix", f"{line!r}: pages {sorted(shown - expected)}"))
        for canary in _canaries_in(" ".join(f"{h.title} {h.heading} {h.url}" for h in hits), world, expected):
            found.append(("typing.prefix.text", f"{line!r}: {canary}"))
        if line != query:
            continue  # over HTTP once per case: the fragment renders the same hits (the proof runs 10,000 cases)
        for path, url, headers in (
            ("http.typing.hx", "/search/typing/?", HX_LIGHT),
            ("http.search.pause.hx", "/search/?", HX_PAUSE),  # the pause's full list, as typing
        ):
            body = client.get(url + urlencode({"q": line}), **headers).content.decode(errors="replace")
            for canary in _canaries_in(body, world, expected, world.expected_spaces(username)):
                found.append((path, f"{line!r}: {canary}"))
    return found
