# Sourced by scripts/test.sh and scripts/prove.sh (with BIN set): throw-away embedded Postgres and
# Redis in a fresh data directory, and the settings pointed at them (they only read the
# environment); all of it stopped and removed on exit, the Redis of each xdist worker too
# (tests/parallel.py), should the run have left one behind.
DATA_DIR="$(mktemp -d "${TMPDIR:-/tmp}/handbook-${1:-run}.XXXXXX")"
export HANDBOOK_DATA_DIR="$DATA_DIR"
unset DATABASE_URL REDIS_URL LLM_BASE_URL LLM_MODEL LLM_API_KEY EMBEDDINGS_BASE_URL
eval "$($BIN/python -m core.embedded env)"
cleanup() {
  for dir in "$DATA_DIR" "$DATA_DIR"/workers-*/workers/*/; do
    [ -d "$dir" ] && HANDBOOK_DATA_DIR="$dir" $BIN/python -m core.embedded stop >/dev/null 2>&1 || true
  done
  rm -rf "$DATA_DIR"
}
trap cleanup EXIT
