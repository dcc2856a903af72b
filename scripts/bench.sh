#!/usr/bin/env bash
# Benchmarks (not part of the tests): the package against n8n's own HTTP Request and Webhook
# nodes in a real n8n (the end-to-end setup: scripts/provision-n8n.sh, the packed package
# installed as a community package), against the fake service on 127.0.0.1 with injected
# latency. Prints one table on stdout; progress goes to stderr. See bench/README.md.
#
#   npm run bench
#   BENCH_ONLY=B1,B3 npm run bench        # some cases (B5 always runs)
#   BENCH_ONLY=B6 BENCH_DIAGNOSE=0 npm run bench                        # peak memory only
#   BENCH_BASELINE=c12c045 BENCH_ONLY=B1,B2,B3 BENCH_DIAGNOSE=0 npm run bench   # B1-B3 against that commit's package too
#
# Variables: BENCH_RUNS (5), BENCH_RATE_LIMIT_RUNS (3), BENCH_NO_RETRY_AFTER_RUNS (2), BENCH_DELIVERIES (2000),
# BENCH_DELIVERY_BLOCKS (4), BENCH_DELIVERY_CONCURRENCY (8), BENCH_LOAD_SAMPLES (5),
# BENCH_LATENCY_MS (30), BENCH_DIAGNOSE=0 (no second n8n for B4's diagnosis), BENCH_MEMORY_RUNS (3),
# BENCH_MEMORY_POSTS (50000), BENCH_BASELINE (a git ref), BENCH_BASELINE_NO_RETRY_AFTER=1, N8N_CACHE_DIR.
set -euo pipefail

cd "$(dirname "$0")/.."

log() { printf '[bench] %s\n' "$*" >&2; }

provision_env=$(bash scripts/provision-n8n.sh)
while IFS='=' read -r key value; do
	[[ "$key" =~ ^[A-Z0-9_]+$ ]] && export "$key=$value"
done <<<"$provision_env"
log "n8n $N8N_VERSION at $N8N_HOME"

npm run build >&2
pack_dir=$(mktemp -d "${TMPDIR:-/tmp}/n8n-bench-pack-XXXXXX")
cleanup() { rm -rf "$pack_dir"; }
trap cleanup EXIT
tarball_name=$(npm pack --silent --pack-destination "$pack_dir" | tail -n 1)
export E2E_PACKAGE_TARBALL="$pack_dir/$tarball_name"
[[ -f "$E2E_PACKAGE_TARBALL" ]] || { log "npm pack produced no tarball"; exit 1; }

log "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
node --experimental-websocket --require ts-node/register/transpile-only bench/run.ts
