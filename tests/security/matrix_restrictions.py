"""Restriction changes and moves in the permission matrix: the world's pages are restricted, opened
and moved between spaces, and every read path is checked at once, before any sweep or rebuild
runs. The oracle (``World.expected_visible``) follows the new facts; a read path that still served
the old visibility (a cached page set, statistics or vocabulary counted before the change) shows up
as a hit or a canary of a page the reader may no longer read, or as ``visible_to`` disagreeing
with the oracle."""

from __future__ import annotations

import random
from typing import Any

from tests.security.matrix import Leak, World, check_case


def change_restrictions(world: World, rng: random.Random) -> list[str]:
    """Restrict open pages, open restricted ones, move one page to another space; the facts follow."""
    from django.contrib.auth.models import Group

    from handbook.models import Page, Space
    from handbook.services import page_move, page_set_restrictions

    changes: list[str] = []
    names = sorted({g for facts in world.memberships.values() for g in facts})
    live = sorted(pid for pid, facts in world.pages.items() if facts["published"] and not facts["deleted"])
    for page_id in rng.sample(live, min(4, len(live))):
        facts = world.pages[page_id]
        page = Page.objects.get(pk=page_id)
        if facts["restricted_to"]:
            page_set_restrictions(page=page, groups=[])
            facts["restricted_to"] = set()
            changes.append(f"opened {page_id}")
        else:
            group = rng.choice(names)
            page_set_restrictions(page=page, groups=[Group.objects.get(name=group)])
            facts["restricted_to"] = {group}
            changes.append(f"restricted {page_id} to {group}")
    movable = [pid for pid in live if len(world.spaces) > 1]
    if movable:
        page_id = rng.choice(movable)
        target = rng.choice([slug for slug in world.spaces if slug != world.pages[page_id]["space"]])
        page_move(page=Page.objects.get(pk=page_id), space=Space.objects.get(slug=target))
        world.pages[page_id]["space"] = target
        changes.append(f"moved {page_id} to {target}")
    return changes


def leaks_after_changes(world: World, rng: random.Random) -> tuple[list[str], list[Leak]]:
    """Read every (user, query) once, change the world, and read again at once."""
    leaks: list[Leak] = []
    for username in world.users:  # warm every per-reader cache with the old visibility
        leaks += check_case(world, username, world.queries[0], summaries=False)
    changes = change_restrictions(world, rng)
    for username in world.users:
        for n, query in enumerate(world.queries):
            leaks += check_case(world, username, query, summaries=n == 0)
    return changes, leaks


def any_restricted(world: World) -> Any:
    return any(facts["restricted_to"] for facts in world.pages.values())
