"""A seeded generator of permission worlds, and the read paths checked against them.

The oracle (``expected_visible``) re-states the rules from the product
description in plain Python, independently of ``handbook/permissions.py``, so a
bug there is caught rather than copied. Every page carries a canary string; a
user must never receive the canary of a page they cannot read, whatever path
they read through.

Used by the fast test (tests/security/test_permission_matrix.py) and by the full proof
(tests/security/test_prove_full.py); the export, group and typing checks are in matrix_export/groups/typing.py.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from io import StringIO
from typing import Any
from urllib.parse import urlencode

from tests.security.matrix_export import export_findings
from tests.security.matrix_typing import typing_findings

TOPIC_WORDS = ["leave", "expenses", "laptop", "password", "travel", "salary", "onboarding", "incident"]
FRENCH_WORDS = ["congés", "frais", "ordinateur", "sécurité"]


@dataclass
class World:
    seed: int
    users: dict[str, Any] = field(default_factory=dict)  # username -> User
    memberships: dict[str, set[str]] = field(default_factory=dict)
    spaces: dict[str, dict[str, Any]] = field(default_factory=dict)  # slug -> {"viewers", "editors", "canary"}
    pages: dict[int, dict[str, Any]] = field(default_factory=dict)  # page id -> facts
    queries: list[str] = field(default_factory=list)
    # One test client per user, logged in once: the typing check reads over HTTP in every case
    # (``matrix_typing.py``), as one person typing query after query in the same session.
    clients: dict[str, Any] = field(default_factory=dict, repr=False)

    def expected_visible(self, username: str) -> set[int]:
        user = self.users[username]
        if not user.is_active:
            return set()
        groups = self.memberships[username]
        visible = set()
        for page_id, facts in self.pages.items():
            if not facts["published"] or facts["deleted"]:
                continue
            if user.is_superuser:
                visible.add(page_id)
                continue
            space = self.spaces[facts["space"]]
            in_space = bool(groups & (space["viewers"] | space["editors"]))
            restricted = facts["restricted_to"]
            if in_space and (not restricted or groups & restricted):
                visible.add(page_id)
        return visible

    def expected_editable(self, username: str) -> set[int]:
        """Pages (drafts included, deleted excluded) the user may edit: editors see these in editing views."""
        user = self.users[username]
        if not user.is_active:
            return set()
        groups = self.memberships[username]
        editable = set()
        for page_id, facts in self.pages.items():
            if facts["deleted"]:
                continue
            restricted = facts["restricted_to"]
            if user.is_superuser or (
                groups & self.spaces[facts["space"]]["editors"] and (not restricted or groups & restricted)
            ):
                editable.add(page_id)
        return editable

    def expected_spaces(self, username: str) -> set[str]:
        """Spaces whose title the user may see: members (viewers or editors) of the space."""
        user = self.users[username]
        if not user.is_active:
            return set()
        if user.is_superuser:
            return set(self.spaces)
        groups = self.memberships[username]
        return {slug for slug, space in self.spaces.items() if groups & (space["viewers"] | space["editors"])}

    def canary(self, page_id: int) -> str:
        return self.pages[page_id]["canary"]


def build_world(seed: int, *, n_users: int = 6, n_spaces: int = 3, n_pages: int = 12, n_queries: int = 12) -> World:
    """Create groups, spaces, users and indexed pages in the database."""
    from django.contrib.auth.models import Group, User

    from handbook.models import Space
    from handbook.services import page_create, page_delete, space_create
    from search.indexing.pipeline import pages_reindex
    from tests.embedding_memo import remember_queries

    rng = random.Random(seed)
    world = World(seed=seed)
    group_names = [f"w{seed}g{i}" for i in range(4)]
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in group_names}
    for s in range(n_spaces):
        viewers = set(rng.sample(group_names, rng.randint(0, 2)))
        editors = set(rng.sample(group_names, rng.randint(0, 1)))
        slug = f"w{seed}s{s}"
        # Space titles carry a canary too: lists and filters must not name a space the user is not in.
        space_canary = f"spacemark{seed}y{s}zq"
        space_create(
            slug=slug,
            title=f"Space {slug} {space_canary}",
            viewer_groups=[groups[g] for g in viewers],
            editor_groups=[groups[g] for g in editors],
        )
        world.spaces[slug] = {"viewers": viewers, "editors": editors, "canary": space_canary}
    for u in range(n_users):
        username = f"w{seed}u{u}"
        superuser = u == 0 and rng.random() < 0.3
        active = not (u == n_users - 1 and rng.random() < 0.5)
        user = User.objects.create_user(
            username=username,
            password="x",
            is_superuser=superuser,
            is_staff=superuser or rng.random() < 0.5,
            is_active=active,
        )
        member_of = set(rng.sample(group_names, rng.randint(0, 3)))
        user.groups.set([groups[g] for g in member_of])
        world.users[username] = user
        world.memberships[username] = member_of
    published, deleted_pages = [], []
    for p in range(n_pages):
        space = rng.choice(list(world.spaces))
        restricted = set(rng.sample(group_names, rng.randint(1, 2))) if rng.random() < 0.4 else set()
        # The canary is never typed as a query (queries are echoed back to the
        # user); the page's key word finds the page, the canary must not leak.
        canary = f"canary{seed}x{p}zq"
        key = f"key{seed}k{p}"
        words = rng.sample(TOPIC_WORDS, 3) + rng.sample(FRENCH_WORDS, 1)
        language = rng.choice(["en", "fr"])
        title = f"{words[0].title()} {canary}"
        body = (
            f"# {words[0].title()} rules\n\nThe {words[0]} and {words[1]} policy ({key}) mentions {canary} "
            f"and {words[2]}.\n\n## Details\n\nAsk about {words[3]} and {words[1]} ({canary} {key}).\n"
        )
        publish = rng.random() < 0.9
        page = page_create(
            space=Space.objects.get(slug=space),
            title=title,
            body=body,
            language=language,
            publish=publish,
            restricted_to=[groups[g] for g in restricted],
        )
        deleted = rng.random() < 0.08
        if publish:
            published.append(page.pk)
        if deleted:
            deleted_pages.append(page)
        world.pages[page.pk] = {
            "space": space,
            "restricted_to": restricted,
            "canary": canary,
            "published": publish,
            "deleted": deleted,
            "ref": page.ref,
            "title": title,
            "key": key,
        }
    # The published pages are indexed together, as a bulk load is: their passages share the model's
    # batches (page by page, the local model took about three times as long). The deleted ones are
    # deleted once indexed, so their chunks existed before.
    if published:
        pages_reindex(published)
    for page in deleted_pages:
        page_delete(page=page)
    canaries = [f["key"] for f in world.pages.values()]
    for _ in range(n_queries):
        kind = rng.random()
        if kind < 0.4:
            world.queries.append(rng.choice(canaries))
        elif kind < 0.7:
            world.queries.append(" ".join(rng.sample(TOPIC_WORDS, 2)))
        elif kind < 0.85:
            world.queries.append(f"what is the {rng.choice(TOPIC_WORDS)} policy?")
        else:
            world.queries.append(rng.choice(FRENCH_WORDS) + " " + rng.choice(canaries))
    remember_queries(world.queries)  # their vectors in one call of the model; every search still asks
    return world


@dataclass
class Leak:
    seed: int
    username: str
    query: str
    path: str
    detail: str


def _canaries_in(text: str, world: World, allowed: set[int], allowed_spaces: set[str] | None = None) -> list[str]:
    """Canaries of pages outside ``allowed`` (and, when given, of spaces outside ``allowed_spaces``) in text."""
    found = [world.canary(pid) for pid in world.pages if pid not in allowed and world.canary(pid) in text]
    if allowed_spaces is not None:
        found += [
            space["canary"]
            for slug, space in world.spaces.items()
            if slug not in allowed_spaces and space["canary"] in text
        ]
    return found


def check_case(world: World, username: str, query: str, *, summaries: bool = True) -> list[Leak]:
    """Run one (user, query) through every non-HTTP read path; return the leaks found."""
    from django.core.management import call_command

    from handbook.models import Page
    from search.ask.answers import AskError, answer_question
    from search.retrieval.pipeline import retrieve
    from search.selectors import search_pages
    from summaries.selectors import summary_for_page

    user = world.users[username]
    expected = world.expected_visible(username)
    leaks: list[Leak] = []

    def leak(path: str, detail: str) -> None:
        leaks.append(Leak(world.seed, username, query, path, detail))

    actual = set(Page.objects.visible_to(user).filter(id__in=world.pages).values_list("id", flat=True))
    if actual != expected:
        leak("visible_to", f"got {sorted(actual)} expected {sorted(expected)}")

    hits = {p.page_id for p in retrieve(query, user).pages if p.page_id in world.pages}
    if not hits <= expected:
        leak("retrieve", f"pages {sorted(hits - expected)}")

    page = search_pages(user=user, query=query, per_page=50)
    shown = {r.page_id for r in page.results if r.page_id in world.pages}
    if not shown <= expected:
        leak("search_pages.results", f"pages {sorted(shown - expected)}")
    # Worlds share one database in the long run: pages of other worlds the user may read count too
    # (counted only when the total exceeds this world's visible pages: no count is needed below that).
    if page.total > len(expected):
        others = Page.objects.visible_to(user).exclude(id__in=world.pages).count()
        if page.total > len(expected) + others:
            leak("search_pages.total", f"total {page.total} > visible {len(expected)} + {others} outside this world")
    rendered = json.dumps([[r.title, str(r.snippet), r.summary, r.url] for r in page.results]) + json.dumps(
        page.facets, default=str
    )
    for canary in _canaries_in(rendered, world, expected):
        leak("search_pages.text", canary)

    try:
        answer = answer_question(user=user, question=query, rate_limit=False, log=False)
        cited = {c.ref for c in answer.citations}
        allowed_refs = {world.pages[p]["ref"] for p in expected}
        world_refs = {f["ref"] for f in world.pages.values()}
        if (cited & world_refs) - allowed_refs:
            leak("ask.citations", str(sorted((cited & world_refs) - allowed_refs)))
        for canary in _canaries_in(answer.text + json.dumps(answer.as_json()), world, expected):
            leak("ask.text", canary)
    except AskError:
        pass

    if user.is_active:
        out = StringIO()
        call_command("search", query, user=username, json=True, limit=50, stdout=out)
        for canary in _canaries_in(out.getvalue(), world, expected):
            leak("cli.search", canary)
        out = StringIO()
        call_command("ask", query, user=username, json=True, stdout=out)
        for canary in _canaries_in(out.getvalue(), world, expected):
            leak("cli.ask", canary)
    leaks += [Leak(world.seed, username, query, *found) for found in typing_findings(world, username, query)]

    # Summaries do not depend on the query: callers check them once per user.
    for page_id in world.pages if summaries else []:
        summary, _current = summary_for_page(page=Page.objects.get(pk=page_id), user=user)
        if summary is not None and page_id not in expected:
            leak("summary_for_page", str(page_id))
    return leaks


def check_http_case(world: World, username: str, query: str, client: Any, *, pages: bool = True) -> list[Leak]:
    """Every HTTP read path for one (user, query): pages, search, ask (the admin: ``check_admin_case``).

    The page, space, history, revisions, diff views and space exports do not depend on the query:
    with ``pages=False`` only the query's paths (search, ask, home, insights) are scanned, for
    callers that scan the pages once per user.
    """
    from django.urls import NoReverseMatch, reverse

    from handbook.models import Page

    user = world.users[username]
    # Editing views (space tree, history, admin) also show the drafts an editor may edit;
    # superusers' admin also lists soft-deleted pages (to restore them).
    expected = world.expected_visible(username) | world.expected_editable(username)
    if user.is_active and user.is_superuser:
        expected |= set(world.pages)
    spaces = world.expected_spaces(username)
    leaks: list[Leak] = []
    client.force_login(user) if user.is_active else client.logout()

    def scan(path: str, url: str, data: dict[str, str] | None = None) -> None:
        if data is not None:  # asking is a POST (a GET of /ask/ only shows the form)
            response = client.post(url, data)
        else:
            response = client.get(url, HTTP_HX_REQUEST="true") if "hx" in path else client.get(url)
        body = response.content.decode(errors="replace")
        for canary in _canaries_in(body, world, expected, spaces):
            leaks.append(Leak(world.seed, username, query, path, f"{url}: {canary}"))

    scan("http.search", "/search/?" + urlencode({"q": query}))
    scan("http.search.hx", "/search/?" + urlencode({"q": query}))
    scan("http.ask", "/ask/", {"q": query})
    scan("http.home", "/")
    scan("http.insights", "/insights/")  # editors: questions and rejected answers of their spaces
    spaces_scanned: set[str] = set()
    for page_id in world.pages if pages else []:
        page = Page.objects.filter(pk=page_id).select_related("space").first()
        if page is None:
            continue
        url = f"/spaces/{page.space.slug}/{page.slug}/"
        scan("http.page", url)
        if page.space.slug not in spaces_scanned:  # each space's page once (it was read once per page)
            spaces_scanned.add(page.space.slug)
            scan("http.space", f"/spaces/{page.space.slug}/")
        for name in ("page_history", "page_revisions", "page_diff"):
            try:
                scan("http." + name, reverse(name, kwargs={"space_slug": page.space.slug, "page_slug": page.slug}))
            except NoReverseMatch:
                continue
    if pages:  # each space's export (web and command) holds exactly what the user may read
        leaks += [Leak(world.seed, username, query, *found) for found in export_findings(world, username, client)]
    return leaks
