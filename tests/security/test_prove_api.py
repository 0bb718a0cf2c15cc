"""The full proof over the API (``make prove``): the matrix and revocation counts for REST and MCP."""

from __future__ import annotations

import time

import pytest

from tests.security.api_matrix import KINDS, VIAS, check_api_case, run_api_trial
from tests.security.matrix import build_world
from tests.security.test_prove_full import count, record

pytestmark = [pytest.mark.prove, pytest.mark.timeout(4 * 3600)]
# (user, query) cases over the API, split between the ways in, as the web matrix counts its 10,000;
# PROVE_API_CASES and PROVE_API_REVOCATION_TRIALS pick smaller runs (a quick look at the figures).
CASES = count("API_CASES", 10_000)
REVOCATION_TRIALS = count("API_REVOCATION_TRIALS", 400)


@pytest.mark.django_db
def test_api_permission_matrix(client, no_embeddings):
    """(user, query) cases per way in (token: REST + MCP; session: REST); each user of each world
    also reads every page directly, by REST and MCP."""
    started = time.monotonic()
    figures, leaks, seed = {}, [], 5000
    for via in VIAS:
        cases = 0
        while cases < CASES // len(VIAS):
            world = build_world(seed, n_users=8, n_pages=14, n_queries=25)
            for username in world.users:
                leaks += check_api_case(world, username, world.queries, client, via=via)
                cases += len(world.queries)
            seed += 1
        figures[f"{via}_cases"] = cases
    figures["worlds"] = seed - 5000
    record("api_permission_matrix", **figures, leaks=len(leaks), seconds=round(time.monotonic() - started))
    assert not leaks, leaks[:10]


@pytest.mark.django_db
def test_api_revocation_trials(client, no_embeddings):
    results = [
        run_api_trial(seed, KINDS[seed % len(KINDS)], client, via=VIAS[seed // len(KINDS) % 2])
        for seed in range(REVOCATION_TRIALS)
    ]
    leaked = sum(after for _before, after in results)
    record("api_revocation", trials=len(results), visible_before=sum(b for b, _a in results), leaks=leaked)
    assert all(before for before, _after in results) and leaked == 0
