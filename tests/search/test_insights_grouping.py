"""Insights: how questions are grouped, what the Ask log keeps for it, and a leak scan of the page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.utils import timezone

from search.insights.grouping import Mention, fold, group_mentions
from search.models import AskLog

NOW = timezone.now()


def _mentions(*texts: str) -> list[Mention]:
    return [Mention(text, "ask", NOW - timedelta(minutes=i)) for i, text in enumerate(texts)]


def test_wordings_that_fold_alike_are_one_group_without_vectors():
    groups = group_mentions(_mentions("Congés payés ?", "conges  PAYES", "VPN password"), use_vectors=False)
    assert [(g.count, fold(g.text)) for g in groups] == [(2, "conges payes"), (1, "vpn password")]
    assert groups[0].last_seen == NOW


@pytest.mark.django_db
def test_near_duplicates_are_grouped_by_their_question_vectors():
    """The local embedding model: paraphrases meet, another topic stays apart."""
    cache.clear()
    groups = group_mentions(
        _mentions(
            "How do I book a parking space?",
            "how can I book a parking spot",
            "parking space booking?",
            "How do I reset my VPN password?",
            "Who approves expense reports?",
        )
    )
    counts = sorted(g.count for g in groups)
    assert counts == [1, 1, 3], [(g.text, g.count, g.variants) for g in groups]
    assert groups[0].text == "How do I book a parking space?"
    assert set(groups[0].variants) == {"how can I book a parking spot", "parking space booking?"}


@pytest.mark.django_db
def test_without_an_embedder_grouping_falls_back_to_folded_text(no_embeddings):
    groups = group_mentions(_mentions("How do I book a parking space?", "how can I book a parking spot"))
    assert [g.count for g in groups] == [1, 1]


@pytest.mark.django_db
def test_the_ask_log_keeps_the_spaces_and_pages_of_the_passages(make_space, make_page, make_user, no_embeddings):
    from search.ask.answers import answer_question

    cache.clear()
    a = make_space("facilities", viewers=("staff",), editors=("a-editors",))
    b = make_space("it", viewers=("staff",), editors=("b-editors",))
    garage = make_page(a, "Parking garage", "# Parking\n\nThe garage under building B has forty spaces.\n")
    vpn = make_page(b, "VPN", "# VPN\n\nThe garage wifi needs the VPN client.\n")
    hidden = make_page(b, "Secret", "# Secret\n\nThe garage master key.\n", restricted_to=("guards",))
    user = make_user("asker", "staff")
    answer_question(user=user, question="How many spaces in the garage?", rate_limit=False, use_llm=False)
    log = AskLog.objects.get()
    assert set(log.passage_spaces) == {a.pk, b.pk}
    assert set(log.passage_pages) == {garage.pk, vpn.pk}  # never a page the asker may not read
    assert hidden.pk not in log.passage_pages


@pytest.mark.django_db
def test_no_page_or_space_leaks_on_the_insights_page(client, settings):
    """The permission matrix's world: everyone asks everything and rejects every answer; then no
    one's Insights page names a page or space they may not see."""
    from search.ask.answers import AskError, answer_question
    from tests.security.matrix import _canaries_in, build_world

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    cache.clear()
    world = build_world(11, n_users=6, n_pages=10, n_queries=5)
    for user in world.users.values():
        for query in world.queries:
            try:
                answer_question(user=user, question=query, rate_limit=False, use_llm=False)
            except AskError:
                continue
    AskLog.objects.update(helpful=False, comment="not what I needed")
    assert AskLog.objects.exclude(mode=AskLog.Mode.NO_ANSWER).exists()
    assert AskLog.objects.exclude(passage_spaces=[]).exists()
    leaks, shown = [], 0
    for username, user in world.users.items():
        client.force_login(user)
        response = client.get("/insights/")
        if response.status_code == 404:
            continue
        body = response.content.decode()
        if not user.is_superuser and 'class="citation"' in body:
            shown += 1  # an editor who is shown cited pages: the scan is not vacuous
        allowed = world.expected_visible(username)
        leaks += [(username, c) for c in _canaries_in(body, world, allowed, world.expected_spaces(username))]
    assert shown and not leaks, leaks[:5]
