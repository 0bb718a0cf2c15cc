"""Reading: home, a space with its page tree, a page (its summary comes from the ``summaries`` tag)."""

from __future__ import annotations

import html
import re

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from handbook.lookups import readable_page, readable_space
from handbook.markdown import render_markdown, table_of_contents
from handbook.models import Page, PageRestriction, SlugRedirect
from handbook.page_views import page_view_record
from handbook.permissions import can_admin_space, can_edit, can_edit_space
from handbook.selectors import TreeNode, drafts_in_space, page_tree, pages_recently_updated, spaces_for_home


@login_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "handbook/home.html",
        {"spaces": spaces_for_home(user=request.user), "recent": pages_recently_updated(user=request.user)},
    )


def _restriction_groups(page_ids: list[int]) -> dict[int, list[str]]:
    """The groups each of these pages is restricted to, by name; unrestricted pages are absent.

    Callers pass only pages the viewer may read, and show the names only to editors of the space
    (who manage them); a reader who may read a restricted page is told no more than that it is.
    """
    groups: dict[int, list[str]] = {}
    rows = PageRestriction.objects.filter(page_id__in=page_ids).order_by("group__name")
    for page_id, name in rows.values_list("page_id", "group__name"):
        groups.setdefault(page_id, []).append(name)
    return groups


def _mark_restricted(pages: list[Page], *, with_names: bool) -> None:
    groups = _restriction_groups([p.pk for p in pages])
    for page in pages:
        page.restricted = page.pk in groups
        page.restricted_to = groups.get(page.pk, []) if with_names else []


def _tree_pages(nodes: list[TreeNode]) -> list[Page]:
    pages = []
    for node in nodes:
        pages.append(node.page)
        pages.extend(_tree_pages(node.children))
    return pages


@login_required
@require_GET
def space_detail(request: HttpRequest, space_slug: str) -> HttpResponse:
    space = readable_space(request.user, space_slug)
    can_edit_here = can_edit_space(request.user, space)
    tree = page_tree(space=space, user=request.user, with_templates=can_edit_here)
    drafts = list(drafts_in_space(space=space, user=request.user)) if can_edit_here else []
    # Both lists hold only pages this user may read (the tree) or edit (drafts: restriction included).
    _mark_restricted(_tree_pages(tree) + drafts, with_names=can_edit_here)
    return render(
        request,
        "handbook/space.html",
        {
            "space": space,
            "tree": tree,
            "drafts": drafts,
            "can_edit": can_edit_here,
            "can_admin": can_admin_space(request.user, space),
        },
    )


@login_required
@require_GET
def page_detail(request: HttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    try:
        page = readable_page(request.user, space_slug, page_slug)
    except Http404:
        return _redirect_old_slug(request, space_slug, page_slug)

    # render_markdown escapes raw HTML and runs the result through an nh3
    # allow-list (no scripts, event handlers or javascript: URLs), so its
    # output - and only its output - may be marked safe.
    body_html, title_anchor = _split_leading_title(render_markdown(page.body), page.title)
    editor = can_edit(request.user, page)  # an editor of its space (restriction included)
    _mark_restricted([page], with_names=editor)
    response = render(
        request,
        "handbook/page.html",
        {
            "page": page,
            "space": page.space,
            "body_html": mark_safe(body_html),  # noqa: S308 - render_markdown output, see above
            "title_anchor": title_anchor,
            # The title is the header now: the contents list starts below it.
            "toc": [h for h in table_of_contents(page.body) if h["id"] != title_anchor],
            "revision": page.published_revision,
            "can_edit": editor,
            "can_admin": can_admin_space(request.user, page.space),
            "has_draft": page.revisions.filter(number__gt=page.published_revision.number).exists()
            if page.published_revision
            else False,
        },
    )
    if request.method == "GET":  # counted once the page is rendered (a replica retry renders it twice)
        page_view_record(page)
    return response


_LEADING_H1 = re.compile(r'\A\s*<h1 id="([^"<>]*)">(.*?)</h1>\s*', re.DOTALL)


def _split_leading_title(body_html: str, title: str) -> tuple[str, str]:
    """Most pages open with ``# <their title>``: show it once, as the page header.

    The removed heading's id moves to the header, so links to ``#<that id>``
    (search passages, citations) still land on it. Only a complete leading
    <h1> whose text is exactly the title is removed; nothing is added.
    """
    match = _LEADING_H1.match(body_html)
    if match and html.unescape(match.group(2)) == title:
        return body_html[match.end() :], match.group(1)
    return body_html, ""


def _redirect_old_slug(request: HttpRequest, space_slug: str, page_slug: str) -> HttpResponse:
    """A renamed or moved page keeps its old address as a permanent redirect.

    The redirect target is only revealed if the user may read the page it leads to.
    """
    old = SlugRedirect.objects.filter(space_slug=space_slug, page_slug=page_slug).values_list("page_id", flat=True)
    page = Page.objects.visible_to(request.user).select_related("space").filter(pk__in=old).first()
    if page is None:
        raise Http404
    return HttpResponsePermanentRedirect(page.get_absolute_url())
