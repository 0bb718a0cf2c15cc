#!/usr/bin/env bash
# make bench: load the corpora once, then run every benchmark and print its tables.
#
#   HANDBOOK_DATA_DIR  bench instance (default var/bench; it persists, so corpora load once)
#   HANDBOOK_SHARED    corpora + labelled queries (default ../shared)
#   BENCH_100K=0       skip the ~100k-chunk latency/recall run (its one-off build takes a few minutes)
#   BENCH_1M=0         skip the ~1M-chunk latency/recall run (one-off build ~25 min on 2 cores, ~12 GB of disk)
#   BENCH_ONLY="quality scale10k scale100k scale1m indexing ingestion hnsw ask decisions verified import llm statements readers capacity"   run a subset
#   (ingestion: the GitLab handbook loaded with load_corpus --wait by real workers, against a
#   served endpoint (whole corpus, ~25 min) and the local model (one page in 20, ~20 min))
#   (llm: search and Ask with a slow and a never-answering fake LLM provider; it writes its own
#   small bilingual handbook and needs no corpora; ~4 min)
#   (capacity: gunicorn with the workers/threads of scripts/run.sh on loopback; submitted searches on
#   the corpora at 1, 2, 4 … users until throughput stops rising, then people typing; ~10-15 min;
#   BENCH_CAPACITY_ARGS=--quick: tiny counts on a throw-away demo handbook, ~1 min after its setup)
#   (decisions: no-match queries with no result, nDCG@10 with the FTS5 reference and Ask's answered /
#   evidence hit / no_answer for the bundled e5 and for the stand-in second model of tests/second_model.py
#   (its endpoint on loopback, on bench_second: a copy of the bench database with its vectors transformed,
#   policy fitted by the product's calibration first); ~1 min of copy + ~4 min of calibration + the queries)
#   (verified: editors verify 40 dev questions; who gets the verified answers, and the time added to Ask;
#   its own database with only the pages it needs, written once (~20 min on 2 cores), then ~2-3 min a run)
#
# Results: bench/results/*.json (git-ignored); tables on stdout (also bench/results/report.md).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.venv/bin
export HANDBOOK_DATA_DIR="${HANDBOOK_DATA_DIR:-$PWD/var/bench}"
unset DATABASE_URL REDIS_URL LLM_BASE_URL LLM_MODEL LLM_API_KEY EMBEDDINGS_BASE_URL
DEFAULT="quality scale10k scale100k scale1m indexing"
[ -f "${HANDBOOK_SHARED:-../shared}/corpora/gitlab-handbook.jsonl" ] && DEFAULT="$DEFAULT ingestion"
[ -f bench/ask.py ] && DEFAULT="$DEFAULT ask"
[ -f bench/decisions.py ] && DEFAULT="$DEFAULT decisions"
[ -f bench/verified.py ] && DEFAULT="$DEFAULT verified"
[ -d "${HANDBOOK_SHARED:-../shared}/repos" ] && DEFAULT="$DEFAULT import"
DEFAULT="$DEFAULT llm statements readers capacity"
ONLY="${BENCH_ONLY:-$DEFAULT}"
[ "${BENCH_100K:-1}" = "0" ] && ONLY="${ONLY/scale100k/}"
[ "${BENCH_1M:-1}" = "0" ] && ONLY="${ONLY/scale1m/}"
mkdir -p bench/results
REPORT=bench/results/report.md
: >"$REPORT"

FAILED=""
run() {  # run NAME ARGS…: one bench, its output teed into the report; a failure does not stop the others
  local name=$1; shift
  local started
  started=$(date +%s)
  echo "## $name" | tee -a "$REPORT"
  if ! $BIN/python -m "$@" 2>&1 | tee -a "$REPORT"; then
    FAILED="$FAILED, $name"
  fi
  echo "($name: $(( $(date +%s) - started )) s)" | tee -a "$REPORT"
}

echo "bench instance: $HANDBOOK_DATA_DIR"
started=$(date +%s)
if [ -n "$(echo "$ONLY" | tr ' ' '\n' | grep -vx -e llm -e statements -e verified -e '')" ]; then  # these need no corpora loaded
  $BIN/python -m bench.common load          # one-off: ~15-30 min of embedding the first time
fi
for bench in $ONLY; do
  case $bench in
    quality)   run "Search quality" bench.search quality ;;
    scale10k)  run "Search at ~10k chunks" bench.search scale --size 10k ;;
    scale100k) run "Search at ~100k chunks" bench.search scale --size 100k ;;
    scale1m)   run "Search at ~1M chunks" bench.search scale --size 1m --sections latency recall ;;
    indexing)  run "Indexing" bench.indexing ;;
    ingestion) run "Ingestion, served endpoint (GitLab handbook)" bench.ingestion --embedder endpoint
               run "Ingestion, local model (GitLab handbook, one page in 20)" bench.ingestion --embedder local ;;
    hnsw)      run "HNSW recall by graph parameters, real and synthetic vectors" bench.hnsw_graph ;;
    ask)       run "Ask" bench.ask ;;
    decisions) run "Decisions per embedding model: bundled e5 and a second model" bench.decisions --model both ;;
    verified)  run "Verified answers: the same, near, other and unrelated questions; readers without access" bench.verified ;;
    import)    run "Markdown import (../shared/repos)" bench.import_repos ;;
    llm)       run "LLM latency (slow and never-answering provider)" bench.llm_latency ;;
    statements) run "LLM sentences checked against their sources (fake provider, demo)" bench.statement_check ;;
    readers)   run "Ask learns from its readers: 200 simulated labels, held-out dev questions" bench.reader_labels ;;
    # shellcheck disable=SC2086  # BENCH_CAPACITY_ARGS: words on purpose
    capacity)  run "Capacity: searches per second at rising concurrency, and people typing" bench.capacity ${BENCH_CAPACITY_ARGS:-} ;;
    *) echo "unknown bench: $bench" >&2; exit 2 ;;
  esac
done
echo "benches: $(( $(date +%s) - started )) s; report: $REPORT"
if [ -n "$FAILED" ]; then
  echo "FAILED: ${FAILED#, }" >&2
  exit 1
fi
