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
  # The Redis of each xdist worker (tests/parallel.py) too, should the run have left one behind.
  for dir in "$DATA_DIR" "$DATA_DIR"/workers-*/workers/*/; do
    [ -d "$dir" ] && HANDBOOK_DATA_DIR="$dir" $BIN/python -m core.embedded stop >/dev/null 2>&1 || true
  done
  rm -rf "$DATA_DIR"
}
trap cleanup EXIT

started=$(date +%s)
$BIN/python manage.py collectstatic --noinput -v 0
# On every core (at most 4: each worker holds its own model, browser, Celery worker and Redis);
# TEST_WORKERS=0, or -n 0 after the arguments, runs in this one process.
cores=$(nproc 2>/dev/null || echo 2)
workers=${TEST_WORKERS:-$(( cores < 4 ? cores : 4 ))}
$BIN/python -m pytest -n "$workers" --dist load --durations=20 "$@"  # the slowest tests are listed
echo "test suite: $(( $(date +%s) - started )) s"
