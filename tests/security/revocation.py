"""Revocation trials: the very next search/Ask after a permission change excludes the page.

No waiting for workers and no stale cache: the answer cache is warmed before
each revocation on purpose.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

KINDS = ("remove_from_group", "move_to_restricted_space", "restrict_page")


@dataclass
class TrialResult:
    kind: str
    saw_before: bool
    leaked_after: bool


@dataclass
class Trial:
    """One person who reads one indexed page through the ``readers`` group, before any change."""

    readers: Any
    other: Any
    closed_space: Any
    user: Any
    secret: str
    page: Any

    def revoke(self, kind: str) -> None:
        """One of ``KINDS``: the permission change after which the page must stay out of sight."""
        from handbook.services import page_move

        if kind == "remove_from_group":
            self.user.groups.remove(self.readers)
        elif kind == "move_to_restricted_space":
            page_move(page=self.page, space=self.closed_space)
        else:
            self.page.restricted_to_groups.set([self.other])


def set_up_trial(seed: int, tag: str) -> Trial:
    """An open space the user reads, a closed one they do not, and an indexed page in the open one."""
    from django.contrib.auth.models import Group, User

    from handbook.services import page_create, space_create
    from search.indexing.pipeline import page_reindex

    rng = random.Random(seed)
    readers = Group.objects.create(name=f"{tag}-readers")
    other = Group.objects.create(name=f"{tag}-other")
    open_space = space_create(slug=f"{tag}-open", title="Open", viewer_groups=[readers])
    closed_space = space_create(slug=f"{tag}-closed", title="Closed", viewer_groups=[other])
    user = User.objects.create_user(username=f"{tag}-user", password="x")
    user.groups.add(readers)
    secret = f"secret{seed}{rng.randint(1000, 9999)}"
    page = page_create(
        space=open_space,
        title=f"Bonus plan {secret}",
        body=f"# Bonus plan\n\nThe bonus plan {secret} pays twice a year.",
    )
    page_reindex(page_id=page.pk, revision_id=page.published_revision_id)
    return Trial(readers, other, closed_space, user, secret, page)


def run_trial(seed: int, kind: str) -> TrialResult:
    from search.ask.answers import answer_question
    from search.retrieval.pipeline import retrieve

    trial = set_up_trial(seed, f"r{seed}{kind[:3]}")
    user, secret, page = trial.user, trial.secret, trial.page

    def sees() -> bool:
        hits = {p.page_id for p in retrieve(f"bonus plan {secret}", user).pages}
        answer = answer_question(user=user, question=f"What is the bonus plan {secret}?", rate_limit=False, log=False)
        return page.pk in hits or secret in answer.text or page.ref in {c.ref for c in answer.citations}

    saw_before = sees()  # also warms the answer cache
    trial.revoke(kind)
    return TrialResult(kind, saw_before, sees())
