#!/usr/bin/env bash
# make run: migrate, load the demo, start a Celery worker and the web server.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
PORT="${PORT:-8000}"
export DEBUG="${DEBUG:-true}"
# With no DATABASE_URL / REDIS_URL, the embedded services (started now) serve every process below.
eval "$($BIN/python -m core.embedded env)"

started=$(date +%s.%N)
$BIN/python manage.py migrate --noinput -v 0
$BIN/python manage.py collectstatic --noinput -v 0

mkdir -p var/log
# Worker with an embedded beat (sweep + heartbeat), consuming both queues (editors'
# saves and bulk work; README "Scaling out"). It loads the embedding model lazily in
# its pool child, never in the parent that forks.
$BIN/celery -A config worker -B -Q interactive,bulk --concurrency=1 --loglevel=INFO \
  --schedule var/celerybeat-schedule >var/log/worker.log 2>&1 &
WORKER=$!
trap 'kill $WORKER 2>/dev/null; wait $WORKER 2>/dev/null' EXIT INT TERM

$BIN/python manage.py seed_demo
# "Ready" means answering as every later minute will: each page indexed (vectors, answer units,
# summary) by the worker, then the keyword statistics, the word-translation vocabulary and the
# language means built from them (README "Ready").
$BIN/python manage.py ready
echo "Ready in $(python3 -c "import time;print(round(time.time()-$started,1))") s."
echo
echo "  Handbook: http://127.0.0.1:${PORT}/"
echo "  Logins (password = username + '-demo'):"
echo "    admin  / admin-demo   superuser"
echo "    alice  / alice-demo   staff, HR editor (sees HR confidential)"
echo "    bob    / bob-demo     staff reader"
echo "    chloe  / chloe-demo   staff, IT + security editor"
echo "    david  / david-demo   staff, finance editor"
echo "  Worker log: var/log/worker.log — stop services with 'make stop'."
echo
$BIN/gunicorn config.wsgi:application --bind "127.0.0.1:${PORT}" --workers 2 --threads 4 \
  --timeout 120 --access-logfile -
