"""Revisions waiting for approval in the permission matrix (``tests/security/matrix.py``).

Every space of a world requires review. Each space gets a page never published whose first text
waits for approval, and a published page whose newer text waits. A pending text is a draft: only
those who may edit its page see it, in the editing views. So each pending text joins the world as
a pseudo-page (negative id, its own canary, never published, in its page's space and restrictions):
the oracle then lets nobody read it and lets editors edit it, and every read path of the matrix
(search, Ask, the command line, the web pages, the exports, the API) must keep its canary out.
The canaries here never contain a world page's ("canary<seed>x<n>zq") as a substring.
"""

from __future__ import annotations

from typing import Any

from tests.security.api_matrix import check_api_case
from tests.security.matrix import Leak, World, _canaries_in, check_case, check_http_case


def pending_key(world: World, n: int) -> str:
    return f"pendkey{world.seed}k{n}"


def add_pending_approvals(world: World) -> dict[int, int]:
    """Require review everywhere and add the pages; {pseudo id: real page id} of the pending texts."""
    from django.contrib.auth.models import Group, User

    from handbook.approvals.selectors import pending_request
    from handbook.approvals.services import page_create_submit, page_submit, space_set_approval
    from handbook.models import Page, Space
    from handbook.services import page_create
    from search.indexing.pipeline import page_reindex
    from summaries.services import summary_generate

    author = User.objects.create_user(f"w{world.seed}author", password="x")  # no reviewer: always asks
    reviewers = Group.objects.get_or_create(name=f"w{world.seed}g0")[0]
    pseudo: dict[int, int] = {}
    for n, (slug, facts) in enumerate(world.spaces.items()):
        space = space_set_approval(space=Space.objects.get(slug=slug), requires_review=True, reviewer_group=reviewers)
        never_canary, pending_canary = f"nevermark{world.seed}y{n}qz", f"pendmark{world.seed}y{n}qz"
        key = pending_key(world, n)
        never, request = page_create_submit(
            space=space,
            title=f"Travel {never_canary}",
            body=f"# Travel\n\nThe travel policy ({key}) says {never_canary}.\n",
            author=author,
            publish=True,
        )
        assert request is not None and not never.is_published
        world.pages[never.pk] = _facts(never, slug, never_canary, published=False)
        # Published before review was asked of it (the import path publishes directly).
        published_canary = f"pubmark{world.seed}y{n}qz"
        page = page_create(
            space=space,
            title=f"Leave {published_canary}",
            body=f"# Leave\n\nThe leave policy mentions {published_canary}.\n",
        )
        submitted = page_submit(
            page=page,
            author=author,
            publish=True,
            review=None,
            title=f"Leave {pending_canary}",
            body=f"# Leave\n\nThe leave policy ({key}) now says {pending_canary} and leave.\n",
        )
        assert submitted.request is not None and pending_request(page) is not None
        page.refresh_from_db()
        assert pending_canary not in page.body
        world.pages[page.pk] = _facts(page, slug, published_canary, published=True)
        world.pages[-page.pk] = {**_facts(page, slug, pending_canary, published=False), "ref": f"page:pending{page.pk}"}
        world.pages[-page.pk]["title"] = f"Leave {pending_canary}"
        pseudo[-page.pk] = page.pk
        facts["pending"] = key
    # The worker's work, as it would run after these saves: the index and summaries follow what is published.
    for page in Page.objects.filter(pk__in=[pid for pid in world.pages if pid > 0]):
        page_reindex(page_id=page.pk, revision_id=page.published_revision_id)
        summary_generate(page_id=page.pk, revision_id=page.published_revision_id)
    world.queries += [pending_key(world, n) for n in range(len(world.spaces))] + ["leave policy"]
    return pseudo


def _facts(page: Any, slug: str, canary: str, *, published: bool) -> dict[str, Any]:
    return {
        "space": slug,
        "restricted_to": set(),
        "canary": canary,
        "published": published,
        "deleted": False,
        "ref": page.ref,
        "title": page.title,
        "key": canary,
    }


def pending_leaks(world: World, pseudo: dict[int, int], client: Any) -> list[Leak]:
    """Every read path of the matrix, for every user and query, and the summaries of every page."""
    from handbook.models import Page
    from summaries.selectors import summary_for_page

    leaks: list[Leak] = []
    real = Page.objects.filter(pk__in=[pid for pid in world.pages if pid > 0])
    for username, user in world.users.items():
        expected = world.expected_visible(username)
        for n, query in enumerate(world.queries):
            leaks += check_case(world, username, query, summaries=False)  # pseudo-pages have no row
            leaks += check_http_case(world, username, query, client, pages=n == 0)
        leaks += check_api_case(world, username, world.queries, client, via="session")
        for page in real:
            summary, _updating = summary_for_page(page=page, user=user)
            text = "" if summary is None else f"{summary.text} {summary.key_points}"
            leaks += [Leak(world.seed, username, "", "summary", c) for c in _canaries_in(text, world, expected)]
    return leaks
