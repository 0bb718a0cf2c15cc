#!/usr/bin/env bash
# make test: the whole suite against a throw-away embedded Postgres and a real Redis.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin

# Browser tests drive Debian's Chromium; install it when missing and we can.
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing chromium for the browser tests…"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
      || echo "warning: could not install chromium; browser tests will fail" >&2
  else
    echo "warning: chromium is not installed (apt-get install chromium); browser tests will fail" >&2
  fi
fi

DATA_DIR="$(mktemp -d "${TMPDIR:-/tmp}/handbook-test.XXXXXX")"
export HANDBOOK_DATA_DIR="$DATA_DIR"
unset DATABASE_URL REDIS_URL LLM_BASE_URL LLM_MODEL LLM_API_KEY EMBEDDINGS_BASE_URL
# Settings only read the environment: start the throw-away services and point everything at them.
eval "$($BIN/python -m core.embedded env)"
cleanup() {
  HANDBOOK_DATA_DIR="$DATA_DIR" $BIN/python -m core.embedded stop >/dev/null 2>&1 || true
  rm -rf "$DATA_DIR"
}
trap cleanup EXIT

started=$(date +%s)
$BIN/python manage.py collectstatic --noinput -v 0
$BIN/python -m pytest --durations=20 "$@"  # the slowest tests are listed: make test stays short
echo "test suite: $(( $(date +%s) - started )) s"
