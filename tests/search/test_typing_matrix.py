"""The permission matrix's typing check can fail: with the visible set widened to every page, it finds the leak."""

from __future__ import annotations

import pytest

from handbook.models import Page
from search.retrieval import prefix
from search.retrieval.visibility import VisiblePages
from tests.security.matrix import build_world
from tests.security.matrix_typing import typed_lines, typing_findings


def test_typed_lines():  # type: ignore[no-untyped-def]
    assert typed_lines("leave travel") == ["leave travel", "lea", "leave", "travel"]


@pytest.mark.django_db
def test_the_typing_check_finds_a_title_the_reader_cannot_read(monkeypatch):  # type: ignore[no-untyped-def]
    """GIVEN a world where some user cannot read some page WHEN the prefix list is given every
    published page instead of the reader's THEN the matrix's typing check reports the leak."""
    world = build_world(11, n_users=5, n_pages=10, n_queries=6)
    cases = [
        (name, world.pages[pid]["title"].split()[0].lower())
        for name in world.users
        for pid in set(world.pages) - world.expected_visible(name)
        if world.pages[pid]["published"] and not world.pages[pid]["deleted"]
    ]
    assert cases, "the seeded world hides a published page from someone"
    assert not [f for name, line in cases for f in typing_findings(world, name, line)]
    everything = VisiblePages(Page.objects.published().values_list("id", flat=True))
    monkeypatch.setattr(prefix, "visible_pages", lambda user: everything)
    found = [f for name, line in cases for f in typing_findings(world, name, line)]
    assert any(path.startswith("typing.prefix") for path, _detail in found), found
    assert any(path == "http.typing.hx" for path, _detail in found), found
