"""Load proof (``make prove``): gunicorn on loopback, 20 concurrent users searching.

Runs bench/load.py's ``run_load`` on a throw-away instance (demo handbook,
real embeddings) with a shorter run than ``python -m bench.load`` and records
requests, errors and search latency percentiles in bench/results/prove.json.
"""

from __future__ import annotations

import pytest

from bench.load import run_load, table
from tests.security.test_prove_full import record

pytestmark = [pytest.mark.prove, pytest.mark.timeout(3600)]


def test_20_users_searching_with_no_errors(tmp_path):
    result = run_load(users=20, spawn_rate=5, run_time="30s", csv_dir=tmp_path, fresh=True)
    print(table(result))
    assert result.total is not None and result.search, result.failures_detail
    record(
        "load",
        users=result.users,
        run_time=result.run_time,
        gunicorn_workers=result.workers,
        requests=result.search["requests"],  # searches (page + htmx); logins are in all_requests
        all_requests=result.total.requests,
        errors=result.total.failures,
        p50_ms=result.search["p50_ms"],
        p95_ms=result.search["p95_ms"],
        rps=round(result.total.rps, 1),
    )
    assert result.ok, result.failures_detail
