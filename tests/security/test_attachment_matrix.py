"""Attachments join the permission matrix: seeded worlds × users × every attachment.

An attachment is readable exactly when its page is (or, for a draft, when the
user may edit the page): by URL, with the id known or guessed, and its address
never shows up in a search hit, a snippet or an Ask answer of a user who cannot
read the page.
"""

from __future__ import annotations

import io
import json
import uuid

import pytest

from tests.security.matrix import build_world

SEEDS = [11, 37]


def _attach_everywhere(world):  # type: ignore[no-untyped-def]
    """One text file per page, its content a canary; published pages link to it in their body."""
    from handbook.attachments.services import attachment_create
    from handbook.models import Page
    from handbook.services import page_save
    from search.indexing.pipeline import page_reindex

    attachments = {}
    for page_id, facts in world.pages.items():
        page = Page.objects.get(pk=page_id)
        secret = f"filecanary{world.seed}x{page_id}zq"
        attachment = attachment_create(page=page, stream=io.BytesIO(secret.encode()), name=f"{facts['key']}.txt")
        attachments[page_id] = (attachment, secret)
        if facts["published"] and not facts["deleted"]:
            body = page.body + f"\n\nAttached: {attachment.markdown()} ({facts['key']})\n"
            result = page_save(page=page, title=page.title, body=body)
            page_reindex(page_id=page.pk, revision_id=result.page.published_revision_id)
    return attachments


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):  # type: ignore[no-untyped-def]
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.mark.django_db
@pytest.mark.parametrize("seed", SEEDS)
def test_no_attachment_is_readable_outside_its_page_readers(seed, client, no_embeddings):
    world = build_world(seed, n_users=6, n_pages=10, n_queries=4)
    attachments = _attach_everywhere(world)
    leaks, checked = [], 0
    for username, user in world.users.items():
        allowed = world.expected_visible(username) | world.expected_editable(username)
        client.force_login(user) if user.is_active else client.logout()
        for page_id, (attachment, secret) in attachments.items():
            for address in (attachment.get_absolute_url(), f"/attachments/{attachment.id}/"):
                response = client.get(address)
                body = b"".join(response.streaming_content) if response.status_code == 200 else response.content
                readable = response.status_code == 200 and secret.encode() in body
                checked += 1
                if readable != (page_id in allowed and user.is_active):
                    leaks.append((username, page_id, address, response.status_code))
                if page_id not in allowed and response.status_code not in (302, 404):
                    leaks.append((username, page_id, address, f"answered {response.status_code}, not 404"))
        # A guessed id is answered like a hidden one.
        if user.is_active:
            assert client.get(f"/attachments/{uuid.uuid4()}/x.txt").status_code == 404
    assert checked == 2 * len(world.users) * len(attachments)
    assert not leaks, leaks[:5]


@pytest.mark.django_db
def test_attachment_addresses_never_reach_search_or_ask_of_other_users(no_embeddings):
    from search.ask.answers import AskError, answer_question
    from search.selectors import search_pages

    world = build_world(23, n_users=6, n_pages=10, n_queries=6)
    attachments = _attach_everywhere(world)
    leaks = []
    for username, user in world.users.items():
        allowed = world.expected_visible(username)
        hidden = {attachments[p][0].id.hex for p in world.pages if p not in allowed}
        for query in world.queries + [f["key"] for f in world.pages.values()][:4]:
            page = search_pages(user=user, query=query, per_page=50)
            shown = json.dumps([[r.title, str(r.snippet), r.summary, r.url] for r in page.results])
            try:
                answer = answer_question(user=user, question=query, rate_limit=False, log=False)
                shown += answer.text + json.dumps(answer.as_json())
            except AskError:
                pass
            leaks += [(username, query, h) for h in hidden if h in shown.replace("-", "")]
    assert not leaks, leaks[:5]
