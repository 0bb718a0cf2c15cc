"""Writes to the core domain. Every change that affects what readers find is announced
(``handbook.page_work.page_changed``): indexing and summaries react after commit."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import Group
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _

from core import languages
from handbook.models import ApprovalRequest, Page, Revision, SlugRedirect, Space
from handbook.page_work import page_changed
from handbook.title_heading import retitled


class EditConflict(Exception):
    """The page changed since the editor opened it; nothing was saved."""

    def __init__(self, page: Page, latest: Revision, yours_title: str, yours_body: str) -> None:
        super().__init__(f"Page {page.pk} changed since revision you started from (now r{latest.number}).")
        self.page, self.latest, self.yours_title, self.yours_body = page, latest, yours_title, yours_body


def unique_slug(space: Space, title: str, *, exclude_pk: int | None = None) -> str:
    base = slugify(title)[:180] or "page"
    slug, n = base, 1
    taken = Page.objects.filter(space=space)
    if exclude_pk:
        taken = taken.exclude(pk=exclude_pk)
    while taken.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def space_create(
    *, slug: str, title: str, viewer_groups: Sequence[Group] = (), editor_groups: Sequence[Group] = ()
) -> Space:
    space, _created = Space.objects.get_or_create(slug=slug, defaults={"title": title})
    if space.title != title:
        space.title = title
        space.save(update_fields=["title", "updated_at"])
    space.viewer_groups.add(*viewer_groups)
    space.editor_groups.add(*editor_groups)
    return space


def _next_number(page: Page) -> int:
    return (page.revisions.aggregate(n=Max("number"))["n"] or 0) + 1


@transaction.atomic
def page_create(
    *,
    space: Space,
    title: str,
    body: str,
    language: str = languages.DEFAULT.code,
    author: Any = None,
    ref: str | None = None,
    publish: bool = True,
    restricted_to: Sequence[Group] = (),
) -> Page:
    page = Page(space=space, title=title, slug=unique_slug(space, title), language=language, last_editor=author)
    if ref:
        page.ref = ref
    page.save()
    if restricted_to:
        page.restricted_to_groups.set(restricted_to)
    revision = Revision.objects.create(page=page, number=1, title=title, body=body, author=author)
    if publish:
        _publish(page, revision, author)
    return page


def _publish(page: Page, revision: Revision, author: Any) -> None:
    _supersede_pending(page)
    page.title, page.body = revision.title, revision.body
    page.published_revision = revision
    page.status = Page.Status.PUBLISHED
    page.last_editor = author
    page.save()
    page_changed(page)


def _supersede_pending(page: Page) -> None:
    """A revision saved or published after an approval request makes it stale: approving it would
    publish an older text over a newer one. The author asks again by publishing."""
    ApprovalRequest.objects.filter(page=page, state=ApprovalRequest.State.PENDING).update(
        state=ApprovalRequest.State.SUPERSEDED
    )


@dataclass
class SaveResult:
    page: Page
    revision: Revision | None  # None when nothing changed
    published: bool


@transaction.atomic
def page_save(
    *,
    page: Page,
    title: str,
    body: str,
    author: Any = None,
    publish: bool = True,
    base_number: int | None = None,
    note: str = "",
) -> SaveResult:
    """Save a new revision (draft or published).

    ``base_number`` is the revision the editor started from: if someone saved
    a newer one in between, ``EditConflict`` is raised and nothing is written.
    An unchanged title and body create no revision.
    """
    page = Page.objects.select_for_update().get(pk=page.pk)
    latest = page.revisions.order_by("-number").first()
    if base_number is not None and latest is not None and latest.number != base_number:
        raise EditConflict(page, latest, title, body)
    if latest is not None and _current_title(page, latest) == title and latest.body == body:
        if publish and page.published_revision_id != latest.pk:
            _publish(page, latest, author)
            return SaveResult(page, latest, True)
        return SaveResult(page, None, page.published_revision_id == latest.pk)
    revision = Revision.objects.create(
        page=page, number=_next_number(page), title=title, body=body, author=author, note=note[:300]
    )
    _supersede_pending(page)
    if publish:
        _publish(page, revision, author)
    # A draft leaves the Page row alone: its last editor and update time are what
    # readers see ("Last edited by", "Recently updated"), and a draft is not theirs to see.
    return SaveResult(page, revision, publish)


def _current_title(page: Page, latest: Revision) -> str:
    """The title an edit starts from: a rename changes the page's title without a
    revision (see ``page_rename``), so the published revision's own title may be older."""
    return page.title if latest.pk == page.published_revision_id else latest.title


@transaction.atomic
def page_publish(*, page: Page, revision: Revision, author: Any = None) -> Page:
    page = Page.objects.select_for_update().get(pk=page.pk)
    if revision.page_id != page.pk:
        raise ValueError("revision belongs to another page")
    _publish(page, revision, author)
    return page


@transaction.atomic
def page_restore(*, page: Page, revision: Revision, author: Any = None, publish: bool = True) -> Revision:
    """Restoring copies an old revision into a new one: history only grows. ``publish=False`` saves
    the copy as a draft (a space that requires review sends it to the reviewers instead)."""
    result = page_save(
        page=page,
        title=revision.title,
        body=revision.body,
        author=author,
        note=f"Restored r{revision.number}",
        publish=publish,
    )
    return result.revision or revision


@transaction.atomic
def page_rename(*, page: Page, title: str, author: Any = None) -> Page:
    """Change the title and the address (the old one redirects), and the text's opening
    ``# <old title>`` heading with them, nothing else.

    No draft is published: a draft stays a draft and readers keep the published
    text, now under the new title. When that text opens with the old title as its
    H1, the same text with the new heading is published as a "Renamed" revision
    (otherwise the old name shows under the new one). A pending draft carries the
    title it was saved with, which publishing it would bring back, so its text is
    saved again as a new draft revision under the new title (and heading), after
    any "Renamed" published one so that it stays the pending draft.

    In a space that requires review, a publisher whose text goes to the reviewers renames a published
    page with ``page_rename_for_review`` instead: this one shows readers the new title at once.
    """
    page = Page.objects.select_for_update().get(pk=page.pk)
    latest = page.revisions.order_by("-number").first()
    draft = latest if latest is not None and latest.pk != page.published_revision_id else None
    published = page.published_revision
    fields: list[str] = []
    if published is not None and page.is_published:
        body = retitled(published.body, {page.title, published.title}, title)
        if body is not None:
            published = Revision.objects.create(
                page=page, number=_next_number(page), title=title, body=body, author=author, note="Renamed"
            )
            page.published_revision, page.body = published, body
            fields += ["published_revision", "body"]
    if draft is not None:
        draft_body = retitled(draft.body, {draft.title, page.title}, title) or draft.body
        if draft.title != title or draft_body != draft.body or fields:
            Revision.objects.create(
                page=page, number=_next_number(page), title=title, body=draft_body, author=author, note="Renamed"
            )
    if fields or (draft is not None and page.revisions.filter(number__gt=draft.number).exists()):
        _supersede_pending(page)  # the text under review carried the old title: the author asks again
    if title != page.title:
        new_slug = unique_slug(page.space, title, exclude_pk=page.pk)
        if new_slug != page.slug:
            SlugRedirect.objects.update_or_create(
                space_slug=page.space.slug, page_slug=page.slug, defaults={"page": page}
            )
            page.slug = new_slug
        page.title = title
        fields += ["title", "slug"]
    if not fields:
        return page
    if page.is_published:
        # Readers see the new title at once: for them this is an edit, and the
        # index holds the title in every chunk's vector (and the heading in the text).
        page.last_editor = author
        fields += ["last_editor", "updated_at"]
    page.save(update_fields=fields)
    if page.is_published:
        page_changed(page)
    return page


@transaction.atomic
def page_rename_for_review(*, page: Page, title: str, author: Any = None) -> Revision | None:
    """A rename of a published page in a space that requires review, by someone whose publish goes
    to its reviewers: nothing readers see changes (title, address, text); the page's latest text
    (a newer draft included, as the editor's Publish sends it) is saved under the new title, its
    opening heading renamed with it, as the revision for the caller to send for review. None when
    that changes nothing. Approving it publishes title and heading; the address stays as it is.
    """
    page = Page.objects.select_for_update().get(pk=page.pk)
    latest = page.revisions.order_by("-number").first()
    if latest is None:
        return None
    current = _current_title(page, latest)
    body = retitled(latest.body, {current, latest.title, page.title}, title) or latest.body
    if title == current and body == latest.body:
        return None
    revision = Revision.objects.create(
        page=page, number=_next_number(page), title=title, body=body, author=author, note="Renamed"
    )
    _supersede_pending(page)
    return revision


class ReviewRequired(ValidationError):
    """Moving this page would show readers of a space that requires review a text its reviewers
    never approved; nothing was moved. The message says why and what to do, in the user's language."""

    def __init__(self, space: Space) -> None:
        message = _(
            "“%(space)s” requires review before publishing: only a reviewer who may publish there can move "
            "a published page into it. Ask one of its reviewers to move it, or create the page there and "
            "send it for review."
        )
        super().__init__(message % {"space": space.title}, code="review_required")


def _same_review(source: Space, destination: Space) -> bool:
    """Was a text published in ``source`` approved as ``destination`` would have it approved?"""
    if not destination.requires_review:
        return True
    return source.requires_review and source.reviewer_group_id == destination.reviewer_group_id


@transaction.atomic
def page_move(*, page: Page, space: Space, approves_there: bool = False) -> Page:
    """Move a page to another space (the old address redirects to it).

    A published page moves into a space that requires review only from a space the same reviewers
    review, or when the mover's own publish there needs no approval (``approves_there``, from
    ``approvals.selectors.needs_approval``): otherwise ``ReviewRequired``. Its readers would read
    at once a text that space's reviewers never saw. A draft moves freely: its publish goes to the
    new space's reviewers.
    """
    page = Page.objects.select_for_update().select_related("space").get(pk=page.pk)
    if page.space_id == space.pk:
        return page
    if page.is_published and not approves_there and not _same_review(page.space, space):
        raise ReviewRequired(space)
    SlugRedirect.objects.update_or_create(space_slug=page.space.slug, page_slug=page.slug, defaults={"page": page})
    page.space = space
    page.slug = unique_slug(space, page.title, exclude_pk=page.pk)
    page.parent = None  # the old parent stays behind in the old space
    page.save()
    page_changed(page)  # visibility follows the page through SQL; keep the index state fresh too
    return page


@transaction.atomic
def page_delete(*, page: Page) -> None:
    Page.objects.filter(pk=page.pk).update(deleted_at=timezone.now())
    page.refresh_from_db()
    page_changed(page)


@transaction.atomic
def page_undelete(*, page: Page) -> None:
    Page.objects.filter(pk=page.pk).update(deleted_at=None)
    page.refresh_from_db()
    page_changed(page)


@transaction.atomic
def page_set_parent(*, page: Page, parent: Page | None) -> Page:
    """Place a page under another page of the same space (or at the top level)."""
    page = Page.objects.select_for_update().get(pk=page.pk)
    if parent is not None:
        if parent.space_id != page.space_id:
            raise ValueError("a page's parent must be in the same space")
        ancestor: Page | None = parent
        for _ in range(1000):  # bounded walk: refuse to create a cycle
            if ancestor is None:
                break
            if ancestor.pk == page.pk:
                raise ValueError("a page cannot be placed under itself or one of its children")
            ancestor = ancestor.parent
    page.parent = parent
    page.save(update_fields=["parent", "updated_at"])
    return page


@transaction.atomic
def space_set_groups(*, space: Space, viewer_groups: list[Group], editor_groups: list[Group]) -> Space:
    """Replace who may read and edit a space. Search filters by SQL at query time, so no reindex."""
    space.viewer_groups.set(viewer_groups)
    space.editor_groups.set(editor_groups)
    space.save(update_fields=["updated_at"])
    return space


@transaction.atomic
def page_set_restrictions(*, page: Page, groups: list[Group]) -> Page:
    page.restricted_to_groups.set(groups)
    return page
