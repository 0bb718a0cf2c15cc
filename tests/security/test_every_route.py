"""The route-complete permission proof (tests/security/routes.py, tests/security/matrix_routes.py).

The route table is checked against what the site really answers: the URLconf walked pattern by
pattern, the REST operations of the live OpenAPI schema, the MCP server's tools and resources. A
route added without being described fails here; so does a description of a route that is gone.
Then every described route is probed for every person of a world holding every kind of object.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.security.routes import ADMIN_SITE, API, MCP_RESOURCES, MCP_TOOLS, WEB


def _walk(patterns: list, prefix: str = "") -> Iterator[str]:  # type: ignore[type-arg]
    from django.urls import URLResolver

    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern)


def site_routes() -> set[str]:
    from django.urls import get_resolver

    return set(_walk(get_resolver().url_patterns))


def admin_model_routes() -> set[str]:
    """The pages the admin makes for each registered model (described by the admin, probed by matrix_admin)."""
    from django.contrib import admin

    return {
        route
        for model, model_admin in admin.site._registry.items()
        for route in _walk(model_admin.urls, f"admin/{model._meta.app_label}/{model._meta.model_name}/")
    }


def api_operations() -> set[str]:
    from api.views import api

    paths = api.get_openapi_schema()["paths"]
    return {f"{method.upper()} {path}" for path, operations in paths.items() for method in operations}


def mcp_surface() -> tuple[set[str], set[str]]:
    """The MCP server's tools and resources, listed on a thread of its own: a browser test earlier in
    the same process leaves an event loop on this one (Playwright's sync API)."""
    from api.mcp import server

    async def listing() -> tuple[set[str], set[str]]:
        tools = {tool.name for tool in await server.list_tools()}
        resources = {str(r.uri) for r in await server.list_resources()}
        resources |= {t.uri_template.replace("{+ref}", "{ref}") for t in await server.list_resource_templates()}
        return tools, resources

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, listing()).result()


def test_every_route_is_described():
    routes = site_routes()
    admin_models = admin_model_routes()
    assert admin_models and admin_models <= routes
    undescribed = routes - admin_models - set(WEB) - set(ADMIN_SITE)
    assert not undescribed, f"routes missing from tests/security/routes.py: {sorted(undescribed)}"
    stale = (set(WEB) | set(ADMIN_SITE)) - routes
    assert not stale, f"described routes the site no longer has: {sorted(stale)}"
    assert api_operations() == set(API)
    tools, resources = mcp_surface()
    assert tools == set(MCP_TOOLS)
    assert resources == set(MCP_RESOURCES)


def test_an_undescribed_route_fails_the_check(settings):
    """Not vacuous: a URLconf with one more route is caught."""
    from django.urls import clear_url_caches, path

    import config.urls

    extra = type("Urls", (), {"urlpatterns": [*config.urls.urlpatterns, path("secret-new/", lambda r: None)]})
    settings.ROOT_URLCONF = extra
    clear_url_caches()
    try:
        assert "secret-new/" in site_routes() - set(WEB)
    finally:
        clear_url_caches()


def _prove(seed: int, client, *, per_route: int | None, n_users: int, n_pages: int):  # type: ignore[no-untyped-def]
    from tests.security.matrix import build_world
    from tests.security.matrix_routes import route_findings
    from tests.security.route_objects import add_every_kind

    world = build_world(seed, n_users=n_users, n_pages=n_pages, n_queries=2)
    objects = add_every_kind(world)
    leaks = []
    for username in world.users:
        leaks += route_findings(world, objects, username, client, per_route=per_route)
    # Not vacuous: every described route was requested, and refusals were tried on hidden objects.
    every = set(WEB) | set(API) | {f"tool {t}" for t in MCP_TOOLS} | {f"resource {r}" for r in MCP_RESOURCES}
    unprobed = every - objects.probed
    assert not unprobed, sorted(unprobed)
    assert objects.counts["refused writes on hidden objects"] > 0, objects.counts
    # The case review found: someone edits a space holding a published page they may not read.
    assert any(
        user.is_active
        and not user.is_superuser
        and pid not in world.expected_visible(name)
        and world.memberships[name] & world.spaces[facts["space"]]["editors"]
        for name, user in world.users.items()
        for pid, facts in world.pages.items()
        if pid > 0 and facts["published"] and not facts["deleted"]
    )
    return objects, leaks


@pytest.mark.django_db
def test_no_route_shows_or_changes_what_its_person_may_not(client, settings, tmp_path, no_embeddings):
    settings.MEDIA_ROOT = tmp_path / "media"
    _objects, leaks = _prove(33, client, per_route=3, n_users=4, n_pages=6)
    assert not leaks, leaks[:8]


# Two worlds in make prove; PROVE_ROUTE_SEEDS=1 proves the first alone (CI, to fit its time).
FULL_COUNT_SEEDS = [52, 55][: int(os.environ.get("PROVE_ROUTE_SEEDS", "2"))]


@pytest.mark.prove
@pytest.mark.timeout(3600)  # every route for every person of the world: minutes, beside other proofs
@pytest.mark.django_db
@pytest.mark.parametrize("seed", FULL_COUNT_SEEDS)
def test_no_route_shows_or_changes_what_its_person_may_not_full_count(seed, client, settings, tmp_path, no_embeddings):
    settings.MEDIA_ROOT = tmp_path / "media"
    objects, leaks = _prove(seed, client, per_route=None, n_users=6, n_pages=10)
    assert not leaks, leaks[:8]
    record_counts(f"route proof, seed {seed}", objects)


def record_counts(name: str, objects) -> None:  # type: ignore[no-untyped-def]
    """The proof's figures beside the others of ``make prove`` (bench/results/prove.json): routes covered,
    reads scanned, refused writes; printed by bench/prove_table.py."""
    from tests.security.test_prove_full import record

    counts = dict(objects.counts)
    record(
        name,
        routes_covered=len(objects.probed),
        web_routes=len(WEB) + len(ADMIN_SITE),
        api_operations=len(API),
        mcp_tools_and_resources=len(MCP_TOOLS) + len(MCP_RESOURCES),
        **{key.replace(" ", "_"): value for key, value in counts.items()},
        leaks=0,
    )
