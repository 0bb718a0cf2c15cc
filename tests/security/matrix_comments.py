"""Comments in the permission matrix (``tests/security/matrix.py``).

Every page of a world gets a comment carrying its own marker (drafts and deleted pages too: written
while they could be read, then hidden). For every user, the comments they can list anywhere - the
page, the thread (plain and htmx), Insights, the selectors - are exactly those on pages they may
read; every comment address of a page they cannot read answers 404 and changes nothing; the
editor's presence poll answers 200 / 403 / 404 as the editing views do. Findings are
``(path, detail)`` pairs.
"""

from __future__ import annotations

from typing import Any


def comment_marker(world: Any, page_id: int) -> str:
    # No "canary" inside: a page canary must not be found in a comment marker by accident.
    return f"remark{world.seed}y{page_id}zq"


def add_comments(world: Any) -> None:
    from comments.services import comment_create
    from handbook.models import Page

    authors = [user for user in world.users.values() if user.is_active] or [None]
    for n, page in enumerate(Page.objects.filter(pk__in=world.pages).order_by("pk")):
        comment = comment_create(page=page, author=authors[n % len(authors)], body=comment_marker(world, page.pk))
        world.pages[page.pk]["comment_id"] = comment.pk


def expected_insights(world: Any, username: str) -> set[int]:
    """Pages whose open comments Insights lists: readable, and in a space the user edits (the world's
    pages have no owners); superusers: every readable page."""
    user = world.users[username]
    visible = world.expected_visible(username)
    if not user.is_active or user.is_superuser:
        return visible
    groups = world.memberships[username]
    return {pid for pid in visible if groups & world.spaces[world.pages[pid]["space"]]["editors"]}


def _markers(world: Any, text: str) -> set[int]:
    return {pid for pid in world.pages if comment_marker(world, pid) in text}


def comment_findings(world: Any, username: str, client: Any) -> list[tuple[str, str]]:
    from comments.models import Comment
    from comments.selectors import comments_visible_to, open_comments_for_insights
    from handbook.models import Page
    from search.models import Chunk

    user = world.users[username]
    readable = world.expected_visible(username)
    editable = world.expected_editable(username)
    found: list[tuple[str, str]] = []

    def check(path: str, got: set[int], wanted: set[int]) -> None:
        if got != wanted:
            found.append((path, f"{username}: comments of pages {sorted(got)}, expected {sorted(wanted)}"))

    check("selector.visible", {c.page_id for c in comments_visible_to(user).filter(page_id__in=world.pages)}, readable)
    insights = open_comments_for_insights(user, limit=1000)
    check(
        "selector.insights",
        {c.page_id for c in insights if c.page_id in world.pages},
        expected_insights(world, username),
    )
    if Chunk.objects.filter(text__contains=f"remark{world.seed}y").exists():
        found.append(("index", "a comment reached the search index"))

    client.force_login(user) if user.is_active else client.logout()
    response = client.get("/insights/")
    wanted = expected_insights(world, username) if response.status_code == 200 else set()
    check("http.insights", _markers(world, response.content.decode(errors="replace")), wanted)

    before = list(Comment.objects.order_by("pk").values_list("pk", "resolved_at", "body"))
    pages = Page.objects.filter(pk__in=world.pages).select_related("space")
    for page in pages:
        base = f"/spaces/{page.space.slug}/{page.slug}/"
        own = {page.pk} if page.pk in readable else set()
        comment_id = world.pages[page.pk]["comment_id"]
        for path, response in (
            ("http.page", client.get(base)),
            ("http.thread", client.get(base + "comments/")),
            ("http.thread.hx", client.get(base + "comments/", HTTP_HX_REQUEST="true")),
        ):
            check(f"{path} {base}", _markers(world, response.content.decode(errors="replace")), own)
            if not user.is_active:
                continue
            if (response.status_code == 200) != bool(own):
                found.append((path, f"{username}: {base} answered {response.status_code}"))
        if not user.is_active or own:
            continue
        # A page they cannot read: every write answers 404, like a missing page.
        answers = [client.post(base + "comments/", {"body": "hello"}).status_code]
        answers += [
            client.post(f"{base}comments/{comment_id}/{a}/").status_code for a in ("resolve", "reopen", "delete")
        ]
        if readable:  # the hidden comment's id under the address of a page they do read
            other = next(p for p in pages if p.pk in readable)
            where = f"/spaces/{other.space.slug}/{other.slug}/comments/{comment_id}/"
            answers += [client.post(where + a + "/").status_code for a in ("resolve", "reopen", "delete")]
        if set(answers) != {404}:
            found.append(("http.write", f"{username}: {base} answered {answers}"))
    for page in pages if user.is_active else []:
        status = client.post(f"/spaces/{page.space.slug}/{page.slug}/editing-now/").status_code
        wanted_status = 200 if page.pk in editable else 403 if page.pk in readable else 404
        if status != wanted_status:
            found.append(("http.presence", f"{username}: page {page.pk} answered {status}, expected {wanted_status}"))
    if list(Comment.objects.order_by("pk").values_list("pk", "resolved_at", "body")) != before:
        found.append(("http.write", f"{username}: a refused write changed the comments"))
    return found
