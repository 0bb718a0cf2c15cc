"""Permission matrix, fast version: seeded worlds × users × queries over every read path.

What does not depend on the query (summaries, the page views over HTTP) is checked once per user.

The full count (≥ 10,000 cases) runs in ``make prove`` (tests/security/test_prove_full.py), with every seed
of the parametrized tests below; ``make test`` runs the first seed of each.
"""

from __future__ import annotations

import pytest

from tests.security.matrix import build_world, check_case, check_http_case
from tests.security.matrix_admin import admin_urls, check_admin_case

SEEDS = [11, 23]


def in_make_test(first, *others):  # type: ignore[no-untyped-def]
    """Seeds of a parametrized matrix test: the first runs in ``make test``; every one runs in ``make prove``
    (the ``prove`` marker), which runs the full counts."""
    return [first, *(pytest.param(seed, marks=pytest.mark.prove) for seed in others)]


@pytest.mark.django_db
@pytest.mark.parametrize("seed", in_make_test(*SEEDS))  # seed 23's world: the side-by-side test below
def test_no_read_path_leaks(seed, settings):
    world = build_world(seed, n_users=5, n_pages=10, n_queries=6)
    leaks = []
    cases = 0
    for username in world.users:
        for n, query in enumerate(world.queries):
            leaks += check_case(world, username, query, summaries=n == 0)  # summaries: once per user
            cases += 1
    assert cases == 30
    assert not leaks, leaks[:5]


@pytest.mark.django_db
def test_no_read_path_leaks_with_the_bitmap_form_of_the_visible_set(monkeypatch):  # type: ignore[no-untyped-def]
    """Large visible sets reach SQL as a page bitmap: the same matrix with it forced everywhere."""
    from search.retrieval import keyword, visibility

    monkeypatch.setattr(visibility, "ARRAY_MAX_IDS", 0)
    monkeypatch.setattr(keyword, "pages_way_in", lambda visible: False)  # the keyword list's bitmap way in
    world = build_world(11, n_users=5, n_pages=10, n_queries=6)
    leaks = [
        leak
        for username in world.users
        for n, query in enumerate(world.queries)
        for leak in check_case(world, username, query, summaries=n == 0)
    ]
    assert not leaks, leaks[:5]


@pytest.mark.django_db(transaction=True)
def test_no_read_path_leaks_with_the_lists_run_side_by_side():  # type: ignore[no-untyped-def]
    """Outside a transaction a search's lists run on pool connections: the same matrix on that path."""
    from search.retrieval import parallel

    world = build_world(23, n_users=5, n_pages=10, n_queries=6)
    try:
        assert parallel.enabled()
        leaks = [
            leak
            for username in world.users
            for n, query in enumerate(world.queries)
            for leak in check_case(world, username, query, summaries=n == 0)
        ]
    finally:
        parallel.close_connections()
    assert not leaks, leaks[:5]


@pytest.mark.django_db
def test_no_http_path_leaks(client):
    world = build_world(37, n_users=5, n_pages=8, n_queries=3)
    leaks = []
    for username in world.users:
        for n, query in enumerate(world.queries):  # the query-independent page views: once per user
            leaks += check_http_case(world, username, query, client, pages=n == 0)
    assert not leaks, leaks[:5]


@pytest.mark.django_db
def test_no_admin_path_leaks(client):
    """Every user but the superusers holds every view and change permission of the admin:
    no list, filter, search, raw-id lookup, autocomplete or form names a page or space
    they cannot read (on main the index status list, its search and its space filter did)."""
    from django.contrib import admin

    world = build_world(37, n_users=5, n_pages=8, n_queries=1)
    leaks = []
    for username in world.users:
        leaks += check_admin_case(world, username, client)
    assert not leaks, leaks[:5]

    # The scan is not vacuous: it reaches every registered model and every kind of admin page.
    urls = admin_urls(world, set(world.pages), set(world.spaces))
    for model in admin.site._registry:
        assert any(f"/admin/{model._meta.app_label}/{model._meta.model_name}/" in url for url in urls), model
    for page_id in world.pages:
        assert f"/admin/handbook/page/{page_id}/change/" in urls
        assert f"/admin/handbook/slugredirect/add/?page={page_id}" in urls
    assert any(url.startswith("/admin/autocomplete/?") for url in urls)
    assert any("page__space__id__exact=" in url for url in urls)


@pytest.mark.django_db
def test_oracle_agrees_with_a_hand_checked_world(make_space, make_user, make_page):
    """The oracle itself is right on a case worked out by hand."""
    from tests.security.matrix import World

    space = make_space("hr", viewers=("hr",), editors=("hr-editors",))
    page = make_page(space, "Salary", "# Salary\n\nsecret", restricted_to=("payroll",), index=False)
    world = World(seed=0)
    world.spaces["hr"] = {"viewers": {"hr"}, "editors": {"hr-editors"}}
    world.pages[page.pk] = {
        "space": "hr",
        "restricted_to": {"payroll"},
        "canary": "c",
        "published": True,
        "deleted": False,
        "ref": page.ref,
        "title": "Salary",
    }
    for name, groups, sees in [
        ("a", ("hr",), False),
        ("b", ("hr", "payroll"), True),
        ("c", ("payroll",), False),
        ("d", ("hr-editors", "payroll"), True),
    ]:
        world.users[name] = make_user(name, *groups)
        world.memberships[name] = set(groups)
        assert (page.pk in world.expected_visible(name)) is sees, name


@pytest.mark.django_db
@pytest.mark.parametrize("seed", in_make_test(11, 37))
def test_no_space_export_holds_what_its_caller_may_not_read(seed, client, settings, tmp_path, no_embeddings):
    """Every user exports every space (the editors' button, the command with --user): each zip holds
    exactly the space's pages they may read and those pages' files; links to anything else are text."""
    from tests.security.matrix_export import attach_and_cross_link, export_findings

    settings.MEDIA_ROOT = tmp_path / "media"
    world = build_world(seed, n_users=6, n_pages=10, n_queries=1)
    attach_and_cross_link(world)
    leaks = [found for username in world.users for found in export_findings(world, username, client)]
    assert not leaks, leaks[:5]
    # Not vacuous: someone edits a space holding a page hidden from them, and someone reads one.
    editors_with_hidden = [
        (name, slug)
        for name, user in world.users.items()
        for slug, space in world.spaces.items()
        if user.is_active
        and world.memberships[name] & space["editors"]
        and any(f["space"] == slug and pid not in world.expected_visible(name) for pid, f in world.pages.items())
    ]
    assert editors_with_hidden and any(world.expected_visible(name) for name in world.users)


@pytest.mark.django_db
@pytest.mark.parametrize("seed", in_make_test(*SEEDS))
def test_deleting_a_restricting_group_changes_no_ones_pages(seed, client, make_user, no_embeddings):
    from tests.security.matrix_groups import group_deletion_findings

    world = build_world(seed, n_users=5, n_pages=10, n_queries=1)
    assert any(facts["restricted_to"] for facts in world.pages.values())
    root = make_user(f"root{seed}", superuser=True, staff=True)
    findings = group_deletion_findings(world, client, root)
    assert not findings, findings[:5]


@pytest.mark.django_db
@pytest.mark.parametrize("seed", in_make_test(11, 37))
def test_comments_are_listed_exactly_on_the_pages_their_reader_may_read(seed, client, no_embeddings):
    """Page, thread, Insights and selectors list exactly the comments of readable pages; every
    comment address of any other page is a 404 that changes nothing (tests/security/matrix_comments.py)."""
    from tests.security.matrix_comments import add_comments, comment_findings, expected_insights

    world = build_world(seed, n_users=5, n_pages=8, n_queries=1)
    add_comments(world)
    leaks = [found for username in world.users for found in comment_findings(world, username, client)]
    assert not leaks, leaks[:5]
    # Not vacuous: someone reads a commented page and is refused another; some editor's Insights lists one.
    assert any(world.expected_visible(n) and set(world.pages) - world.expected_visible(n) for n in world.users)
    assert any(expected_insights(world, n) for n in world.users if not world.users[n].is_superuser)


@pytest.mark.django_db
def test_no_read_path_serves_a_revision_waiting_for_approval(client, no_embeddings):
    """Pages never published whose text waits for approval, and published pages whose newer text
    waits: no read path gives anyone a pending text (editors see it in the editing views only)."""
    from tests.security.matrix_approvals import add_pending_approvals, pending_leaks

    world = build_world(23, n_users=5, n_pages=6, n_queries=2)
    pseudo = add_pending_approvals(world)
    leaks = pending_leaks(world, pseudo, client)
    assert not leaks, leaks[:5]
    # Not vacuous: someone reads a page whose newer text waits, and someone edits one.
    assert any(pseudo[p] in world.expected_visible(name) for p in pseudo for name in world.users)
    assert any(p in world.expected_editable(name) for p in pseudo for name in world.users)


@pytest.mark.django_db
@pytest.mark.parametrize("seed", in_make_test(*SEEDS))
def test_a_restriction_change_or_a_move_holds_at_once_on_every_read_path(seed):
    """Pages are restricted, opened and moved after every reader has searched: the next read of each
    follows the new facts, with no sweep or rebuild in between."""
    import random

    from tests.security.matrix_restrictions import any_restricted, leaks_after_changes

    world = build_world(seed, n_users=5, n_pages=10, n_queries=3)
    assert any_restricted(world)
    changes, leaks = leaks_after_changes(world, random.Random(seed))
    assert len(changes) >= 4, changes
    assert not leaks, (changes, leaks[:5])
