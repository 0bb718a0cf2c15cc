"""Revocation, fast version (the 1,000-trial run is in make prove)."""

from __future__ import annotations

import pytest

from tests.security.revocation import KINDS, run_trial


@pytest.mark.django_db
@pytest.mark.parametrize("kind", KINDS)
def test_revocation_takes_effect_on_the_next_request(kind, no_embeddings):
    results = [run_trial(seed, kind) for seed in range(4)]
    assert all(r.saw_before for r in results), "the page was readable before"
    assert not any(r.leaked_after for r in results)


@pytest.mark.django_db
def test_revocation_with_vectors(make_user):
    result = run_trial(99, "restrict_page")
    assert result.saw_before and not result.leaked_after
