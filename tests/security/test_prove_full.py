"""The full proof (``make prove``): the large counts behind the fast security tests.

Deselected from ``make test`` by the ``prove`` marker; each test records its
figures in bench/results/prove.json and scripts/prove.sh prints the table.
"""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path

import pytest
from django.db import transaction

from tests.security.faults import kill_worker_during_reindex, make_pages, race_edits
from tests.security.matrix import build_world, check_case, check_http_case
from tests.security.matrix_admin import check_admin_case
from tests.security.revocation import KINDS, TrialResult, run_trial

pytestmark = [pytest.mark.prove, pytest.mark.timeout(4 * 3600)]
RESULTS = Path(__file__).resolve().parents[2] / "bench" / "results" / "prove.json"


def count(name: str, full: int) -> int:
    """The full count, or a smaller one from ``PROVE_<name>`` in the environment: a quick look at the
    cost per case (``make prove`` sets none of them and counts in full)."""
    return int(os.environ.get(f"PROVE_{name}", str(full)))


MATRIX_CASES = count("MATRIX_CASES", 10_000)
REVOCATION_TRIALS = count("REVOCATION_TRIALS", 1000)
REINDEX_TASKS = count("REINDEX_TASKS", 500)
WORKER_KILLS = count("WORKER_KILLS", 10)
EDIT_RACES = count("EDIT_RACES", 1000)


def record(name: str, **figures) -> None:  # type: ignore[no-untyped-def]
    """Add one proof's figures to the file; the proofs run in several processes (scripts/prove.sh),
    so each read-modify-write holds a lock beside the file."""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    with open(RESULTS.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        data = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
        data[name] = figures
        RESULTS.write_text(json.dumps(data, indent=2))


@pytest.mark.django_db
def test_permission_matrix_10000_cases(client):
    started = time.monotonic()
    cases, leaks, http_cases, admin_cases = 0, [], 0, 0
    seed = 1000
    while cases < MATRIX_CASES:
        world = build_world(seed, n_users=8, n_pages=14, n_queries=25)
        for username in world.users:
            for n, query in enumerate(world.queries):
                leaks += check_case(world, username, query, summaries=n == 0)
                cases += 1
        # HTTP paths on a slice of the cases (each renders several full pages).
        for username in list(world.users)[:4]:
            leaks += check_http_case(world, username, world.queries[0], client)
            http_cases += 1
        # The admin does not depend on the query: every user of every world, once.
        for username in world.users:
            leaks += check_admin_case(world, username, client)
            admin_cases += 1
        seed += 1
    record(
        "permission_matrix",
        cases=cases,
        http_cases=http_cases,
        admin_cases=admin_cases,
        worlds=seed - 1000,
        leaks=len(leaks),
        seconds=round(time.monotonic() - started),
    )
    assert not leaks, leaks[:10]


def _trial_alone(seed: int) -> TrialResult:
    """One revocation trial in a savepoint rolled back afterwards: each trial meets a handbook of its
    own few rows, not every earlier trial's too (kept, they made the run grow with the square of the
    count). Trials share nothing: each has its own names, secret and question."""
    with transaction.atomic():
        result = run_trial(seed, KINDS[seed % len(KINDS)])
        transaction.set_rollback(True)
    return result


@pytest.mark.django_db
def test_revocation_1000_trials(no_embeddings):
    results = [_trial_alone(seed) for seed in range(REVOCATION_TRIALS)]
    leaked = sum(r.leaked_after for r in results)
    record("revocation", trials=len(results), visible_before=sum(r.saw_before for r in results), leaks=leaked)
    assert all(r.saw_before for r in results) and leaked == 0


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_kill_worker_during_500_reindex_tasks(worker, make_space):
    pages = make_pages(make_space("prove-kill"), REINDEX_TASKS, seed=7, size=2)
    report = kill_worker_during_reindex(worker, pages, kills=WORKER_KILLS, seed=7, heal_timeout=1800)
    record("worker_kill", tasks=report.tasks, faults_injected=report.kills, stale_pages=len(report.inconsistent))
    assert report.inconsistent == []


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_1000_concurrent_edit_races(worker, make_space):
    pages = make_pages(make_space("prove-race"), 20, seed=8, size=1)
    report = race_edits(pages, edits=EDIT_RACES, threads=8, seed=8, heal_timeout=1800)
    record(
        "edit_races",
        edits=report.saves,
        revisions=report.revisions_written,
        conflicts_retried=report.conflicts,
        lost_edits=report.lost_edits,
        stale_pages=len(report.inconsistent),
    )
    assert report.lost_edits == 0 and report.revisions_written == EDIT_RACES and report.inconsistent == []
