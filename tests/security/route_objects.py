"""The objects of the route proof (``matrix_routes.py``): one of every kind a person can make, on
every page of a world, each with a marker of its own, and who may see and write each.

Markers never contain a page canary ("canary<seed>x<n>zq") or a comment marker ("remark…"); the
probe never types one (a query is echoed back to whoever typed it).
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from tests.security.matrix import World
from tests.security.routes import Route


@dataclass
class Filling:
    """One object filling a route: its parameters, and what decides who may see and write it."""

    values: dict[str, str]
    page_id: int | None = None  # the page the object belongs to
    space: str | None = None  # the space, for space-level objects
    owner: str | None = None  # the person whose object it is (tokens, Ask logs)
    gap: bool = False  # a verified "not in the handbook" record: it belongs to its space


@dataclass
class Objects:
    """What ``add_every_kind`` made: markers, and the fillings of each kind of route parameter."""

    markers: dict[str, tuple[str, int]] = field(default_factory=dict)  # marker -> (rule, page id)
    fillings: dict[tuple[str, ...], list[Filling]] = field(default_factory=dict)
    questions: list[str] = field(default_factory=list)
    asked: dict[int, str] = field(default_factory=dict)  # page id -> the question verified on it
    reviewers: str = ""
    # What the probe did: routes requested, GETs scanned, refused POSTs, and those compared with a missing object.
    probed: set[str] = field(default_factory=set)
    counts: Counter[str] = field(default_factory=Counter)


def marker(kind: str, world: World, page_id: int) -> str:
    # Never contains a page canary ("canary<seed>x<n>zq") or a comment marker ("remark…").
    return f"{kind}mk{world.seed}y{page_id}zq"


def add_every_kind(world: World) -> Objects:
    """One of every kind of object on each page of the world (its pages as ``build_world`` made them)."""
    from django.contrib.auth.models import User

    from accounts.services import token_create
    from comments.services import comment_create
    from handbook.attachments.services import attachment_create
    from handbook.models import Page, Space
    from handbook.page_templates import page_set_template
    from handbook.services import page_save
    from handbook.translations.services import translation_link
    from search.ask.feedback import feedback_record
    from search.models import AskLog
    from search.verified.services import mark_not_in_handbook, verify_answer
    from summaries.picks import pick_of_page, picker_units, summary_pick_save
    from tests.security.matrix_approvals import add_pending_approvals

    objects = Objects(reviewers=f"w{world.seed}g0")
    root = User.objects.create_superuser(f"w{world.seed}root", password="x")  # makes, never probes
    askers = [u for u in world.users.values() if u.is_active and not u.is_superuser] or [root]
    live = list(Page.objects.filter(pk__in=world.pages, deleted_at__isnull=True).select_related("space"))
    for n, page in enumerate(live):
        facts = world.pages[page.pk]
        earlier, draft = marker("oldrev", world, page.pk), marker("draft", world, page.pk)
        objects.markers[earlier] = ("read", page.pk)
        objects.markers[draft] = ("edit", page.pk)
        body = page.revisions.order_by("-number").first().body  # type: ignore[union-attr]
        publish = facts["published"]
        page_save(page=page, title=page.title, body=body + f"\n\nEarlier {earlier}.\n", author=root, publish=publish)
        page_save(page=page, title=page.title, body=body, author=root, publish=publish)
        page_save(page=page, title=page.title, body=body + f"\n\nDraft {draft}.\n", author=root, publish=False)
        name = marker("file", world, page.pk) + ".txt"
        objects.markers[name] = ("read", page.pk)
        attachment_create(page=page, stream=io.BytesIO(b"routed file"), name=name, uploaded_by=root)
        comment = comment_create(page=page, author=askers[n % len(askers)], body=marker("note", world, page.pk))
        objects.markers[marker("note", world, page.pk)] = ("read", page.pk)
        page.refresh_from_db()
        if page.is_published:
            # The question is typed by the probe (and echoed back): it holds no marker. What the
            # record shows of the page (title, quote) holds the page's canary.
            question = f"what does {facts['key']} say"
            units = [u["hash"] for u in _unit_hashes(page)][:1]
            verified = verify_answer(editor=root, question=question, page=page, unit_hashes=units)
            objects.questions.append(question)
            objects.asked[page.pk] = question
            objects.fillings.setdefault(("verified",), []).append(Filling({"pk": str(verified.pk)}, page_id=page.pk))
            units = [unit.hash for unit in picker_units(page, pick_of_page(page))][:1]
            summary_pick_save(page=page, editor=root, revision_id=page.published_revision_id, units=units)
        # An Ask question about the page, rated "no" by its asker with the page's space named.
        asker = askers[n % len(askers)]
        feedback = marker("feed", world, page.pk)
        objects.markers[feedback] = ("feedback", page.pk)
        log = AskLog.objects.create(
            user=asker,
            question=f"where is {feedback}",
            mode=AskLog.Mode.NO_ANSWER,
            passage_spaces=[page.space_id],
            passage_pages=[page.pk],
        )
        space_id = page.space_id if Space.objects.visible_to(asker).filter(pk=page.space_id).exists() else None
        feedback_record(user=asker, log_id=log.pk, helpful=False, comment=feedback, space_id=space_id)
        values = _page_values(page)
        objects.fillings.setdefault(("page",), []).append(Filling(values, page_id=page.pk))
        objects.fillings.setdefault(("ref",), []).append(Filling(values, page_id=page.pk))
        objects.fillings.setdefault(("page_id",), []).append(Filling(values, page_id=page.pk))
        for number in page.revisions.values_list("number", flat=True):
            objects.fillings.setdefault(("page", "revision"), []).append(
                Filling({**values, "number": str(number)}, page_id=page.pk)
            )
        objects.fillings.setdefault(("page", "comment"), []).append(
            Filling({**values, "comment_id": str(comment.pk)}, page_id=page.pk)
        )
        objects.fillings.setdefault(("asklog",), []).append(
            Filling({"asklog_id": str(log.pk)}, page_id=page.pk, owner=asker.username)
        )
    # Deleted pages fill the page routes too: they answer like missing ones, to everyone.
    for page in Page.objects.filter(pk__in=world.pages, deleted_at__isnull=False).select_related("space"):
        objects.fillings.setdefault(("page",), []).append(Filling(_page_values(page), page_id=page.pk))
    _link_translations_and_templates(world, live, root, translation_link, page_set_template)
    for attachment in _attachments(world):
        values = {"attachment_id": str(attachment.pk), "filename": attachment.original_name}
        objects.fillings.setdefault(("attachment",), []).append(Filling(values, page_id=attachment.page_id))
    _add_draft_attachments(world, objects, askers, attachment_create)
    objects.fillings[("attachment", "filename")] = objects.fillings.get(("attachment",), [])
    for slug in world.spaces:
        space = Space.objects.get(slug=slug)
        values = {"space_slug": slug, "space_id": str(space.pk), "space": slug}
        objects.fillings.setdefault(("space",), []).append(Filling(values, space=slug))
        question = f"who answers {slug}mk{world.seed}gap"
        gap = mark_not_in_handbook(editor=root, question=question, space=space)
        objects.fillings.setdefault(("verified",), []).append(Filling({"pk": str(gap.pk)}, space=slug, gap=True))
    for username, user in world.users.items():
        token = token_create(user=user, name="routes", scope="ask", days=1)
        objects.fillings.setdefault(("token",), []).append(Filling({"token_id": str(token.token.pk)}, owner=username))
    # Every space requires review, with texts waiting (pseudo-pages of the world: nobody reads them).
    add_pending_approvals(world)
    return objects


def _unit_hashes(page: Any) -> list[dict[str, str]]:
    from search.verified.wording import unit_hash
    from statements.answer_units import page_units

    return [{"hash": unit_hash(u.text)} for u in page_units(page.published_revision.body or "")]


def _page_values(page: Any) -> dict[str, str]:
    return {
        "space_slug": page.space.slug,
        "page_slug": page.slug,
        "page_id": str(page.pk),
        "space_id": str(page.space_id),
        "revision_id": str(page.published_revision_id or 0),
        "ref": page.ref,
        "space": page.space.slug,
        "slug": page.slug,
    }


def _link_translations_and_templates(world: World, live: list[Any], root: Any, link: Any, set_template: Any) -> None:
    """Link one English and one French page of each space as translations; make one page a template."""
    by_space: dict[int, dict[str, Any]] = {}
    for page in live:
        by_space.setdefault(page.space_id, {}).setdefault(page.language, page)
    for pair in by_space.values():
        if "en" in pair and "fr" in pair:
            link(page=pair["en"], twin=pair["fr"], user=root)
    templates = [p for p in live if p.translation_id is None]
    if templates:
        set_template(page=templates[-1], is_template=True)


def _add_draft_attachments(world: World, objects: Objects, askers: list[Any], create: Any) -> None:
    """A file pasted into a New page form not saved yet, per person: only its uploader may open it."""
    for n, uploader in enumerate(askers[:2]):
        text = marker("pasted", world, n)
        objects.markers[text] = (f"own:{uploader.username}", 0)
        draft = create(
            page=None,
            stream=io.BytesIO(text.encode()),
            name=text + ".txt",
            uploaded_by=uploader,
            draft_token=f"{world.seed % 1000:03d}{n:029d}",
        )
        values = {"attachment_id": str(draft.pk), "filename": draft.original_name}
        objects.fillings.setdefault(("attachment",), []).append(Filling(values, owner=uploader.username))


def _attachments(world: World) -> list[Any]:
    from handbook.attachment_models import Attachment

    return list(Attachment.objects.filter(page_id__in=world.pages))


# --- who may -------------------------------------------------------------------------------


def allowed_markers(world: World, objects: Objects, username: str) -> set[str]:
    """The markers this person may be shown (pages: ``_canaries_in``'s rules)."""
    user = world.users[username]
    if not user.is_active:
        return set()
    if user.is_superuser:
        return set(objects.markers)
    readable = world.expected_visible(username) | world.expected_editable(username)
    editable = world.expected_editable(username)
    groups = world.memberships[username]
    allowed = set()
    for text, (rule, page_id) in objects.markers.items():
        if rule.startswith("own:"):  # a draft's file: its uploader's alone
            if rule == f"own:{username}":
                allowed.add(text)
            continue
        space_editor = bool(groups & world.spaces[world.pages[page_id]["space"]]["editors"])
        if (
            (rule == "read" and page_id in readable)
            or (rule == "edit" and page_id in editable)
            or (rule == "feedback" and (page_id in readable or space_editor))
        ):
            allowed.add(text)
    return allowed


def may_write(world: World, objects: Objects, username: str, route: Route, filling: Filling) -> bool:
    """Whether the route's ``writes`` rule gives this person a POST on this object (generous where
    the product's rule is finer: a refusal is then not tried, never wrongly demanded)."""
    user = world.users[username]
    if route.writes == "anyone":
        return True
    if not user.is_active:
        return False
    if route.writes == "signed_in":
        return True
    if route.writes == "nobody":
        return False
    if user.is_superuser:
        return True
    groups = world.memberships[username]
    page = filling.page_id
    readable = world.expected_visible(username) | world.expected_editable(username)
    space = filling.space or (world.pages[page]["space"] if page in world.pages else None)
    space_editor = bool(space and groups & world.spaces[space]["editors"])
    return {
        "page_reader": page in readable,
        "page_editor": page in world.expected_editable(username),
        "space_editor": space_editor,
        "reviewer": objects.reviewers in groups and page in readable,
        "verified_editor": space_editor if filling.gap else page in world.expected_editable(username),
        "token_owner": filling.owner == username,
        "asklog_owner": filling.owner == username,
    }[route.writes]


def may_see(world: World, username: str, filling: Filling) -> bool:
    """Whether the object exists for this person: else the route must answer as for a missing one."""
    user = world.users[username]
    if filling.owner is not None:
        return filling.owner == username
    if filling.page_id is not None:
        return filling.page_id in world.expected_visible(username) | world.expected_editable(username)
    if filling.space is not None:
        return filling.space in world.expected_spaces(username) or (user.is_active and user.is_superuser)
    return True
