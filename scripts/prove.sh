#!/usr/bin/env bash
# make prove: the full-count proofs (permission matrix, revocation, faults, hostile content, load).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
# Throw-away Postgres and Redis, the settings pointed at them, all stopped on exit.
source scripts/services.sh prove
rm -f bench/results/prove.json
status=0
if [ "$#" -gt 0 ]; then  # a chosen proof or option (scripts/prove.sh -k revocation): one run, as asked
  $BIN/python -m pytest -m prove -q "$@" || status=$?
  $BIN/python bench/prove_table.py
  exit $status
fi
# Three passes. First the proofs that need only Postgres, Redis and a Celery worker, side by side on
# every core (at most 4, as make test), each process taking the next proof when it is free
# (worksteal: one proof can take many times another's time). Then the parts of the hostile-payload
# proof, side by side too, apart from the first pass: Chromium's driver keeps an event loop in its
# process, where the API proof's MCP calls cannot run. Last, one at a time, the streaming replica
# (its standby is cloned from the one test database) and the load proof (its latencies must be the
# server's alone).
HOSTILE=tests/security/test_prove_hostile.py
ALONE=(tests/handbook/test_replicas.py tests/security/test_prove_load.py)
cores=$(nproc 2>/dev/null || echo 2)
workers=${PROVE_WORKERS:-$(( cores < 4 ? cores : 4 ))}
$BIN/python -m pytest -m prove -q -n "$workers" --dist worksteal --durations=20 \
  --deselect="$HOSTILE" "${ALONE[@]/#/--deselect=}" || status=$?
$BIN/python -m pytest -m prove -q -n "$workers" --durations=5 "$HOSTILE" || status=$?
$BIN/python -m pytest -m prove -q --durations=5 "${ALONE[@]}" || status=$?
$BIN/python bench/prove_table.py
exit $status
