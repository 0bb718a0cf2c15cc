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

# Throw-away Postgres and Redis, the settings pointed at them, all stopped on exit.
source scripts/services.sh test

started=$(date +%s)
$BIN/python manage.py collectstatic --noinput -v 0
# On every core (at most 4: each worker holds its own model, browser, Celery worker and Redis);
# TEST_WORKERS=0, or -n 0 after the arguments, runs in this one process.
cores=$(nproc 2>/dev/null || echo 2)
workers=${TEST_WORKERS:-$(( cores < 4 ? cores : 4 ))}
$BIN/python -m pytest -n "$workers" --dist load --durations=20 "$@"  # the slowest tests are listed
echo "test suite: $(( $(date +%s) - started )) s"
