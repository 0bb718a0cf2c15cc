#!/usr/bin/env bash
# make prove: the full-count proofs (permission matrix, revocation, faults, hostile content, load).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
DATA_DIR="$(mktemp -d "${TMPDIR:-/tmp}/handbook-prove.XXXXXX")"
export HANDBOOK_DATA_DIR="$DATA_DIR"
unset DATABASE_URL REDIS_URL LLM_BASE_URL LLM_MODEL LLM_API_KEY EMBEDDINGS_BASE_URL
# Settings only read the environment: start the throw-away services and point everything at them.
eval "$($BIN/python -m core.embedded env)"
trap 'HANDBOOK_DATA_DIR="$DATA_DIR" $BIN/python -m core.embedded stop >/dev/null 2>&1 || true; rm -rf "$DATA_DIR"' EXIT
rm -f bench/results/prove.json
status=0
$BIN/python -m pytest -m prove -q "$@" || status=$?
$BIN/python bench/prove_table.py
exit $status
