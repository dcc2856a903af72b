#!/usr/bin/env bash
# End-to-end tests: a real n8n (provisioned and cached by scripts/provision-n8n.sh) with the
# packed package installed as a community package, the fake service as backend, the editor in
# headless Chromium. Runs test/e2e/**/*.e2e.ts with node's test runner, each file in its own
# process, in parallel lanes (scripts/e2e-lanes.mjs): each file has its own n8n and fake service.
#
#   bash scripts/e2e.sh                      # all e2e tests, and the core on n8n 1.x
#   bash scripts/e2e.sh test/e2e/editor.e2e.ts   # some files
#
# Files named *.long.e2e.ts (the 5,000-delivery burst) run only when named: `npm run test:burst`.
#
# Useful variables: N8N_CACHE_DIR (cache folder), E2E_KEEP=1 (keep n8n user folders),
# E2E_TEST_TIMEOUT_MS (per test, default 600000), E2E_LANES (files at once, default 4),
# E2E_PACKAGE_TARBALL (a tarball already packed: scripts/test.sh packs once for every step).
# Screenshots, timings, each file's log (logs/) and its seconds (files.tsv) land in test-output/e2e/.
set -euo pipefail

cd "$(dirname "$0")/.."
repo_root=$(pwd)

log() { printf '[e2e] %s\n' "$*" >&2; }

# 1. the runtime: Node 24 + n8n + Chromium, cached outside the repository
t0=$(date +%s)
provision_env=$(bash scripts/provision-n8n.sh)
while IFS='=' read -r key value; do
	[[ "$key" =~ ^[A-Z0-9_]+$ ]] && export "$key=$value"
done <<<"$provision_env"
log "runtime ready in $(($(date +%s) - t0)) s: n8n $N8N_VERSION at $N8N_HOME"

# 2. the package, packed once for every test file (npm pack builds it: the prepack script)
work_dir=$(mktemp -d "${TMPDIR:-/tmp}/n8n-e2e-XXXXXX")
cleanup() { rm -rf "$work_dir"; }
trap cleanup EXIT
if [[ -n "${E2E_PACKAGE_TARBALL:-}" ]]; then
	[[ -f "$E2E_PACKAGE_TARBALL" ]] || { log "E2E_PACKAGE_TARBALL=$E2E_PACKAGE_TARBALL does not exist"; exit 1; }
	log "using the packed $E2E_PACKAGE_TARBALL"
else
	t0=$(date +%s)
	tarball_name=$(npm pack --silent --pack-destination "$work_dir" | tail -n 1)
	export E2E_PACKAGE_TARBALL="$work_dir/$tarball_name"
	[[ -f "$E2E_PACKAGE_TARBALL" ]] || { log "npm pack produced no tarball"; exit 1; }
	log "packed $tarball_name in $(($(date +%s) - t0)) s"
fi

# 3. the tests (they run under this machine's Node; n8n runs on Node 24)
mkdir -p test-output/e2e
# screenshots, timings and logs of an earlier run would pass for this run's
rm -rf test-output/e2e/*.png test-output/e2e/timings.jsonl test-output/e2e/logs test-output/e2e/files.tsv test-output/e2e/totals.txt
if [[ $# -gt 0 ]]; then
	jobs=("$@")
else
	mapfile -t jobs < <(find test/e2e -name '*.e2e.ts' -not -name '*.long.e2e.ts' -not -path '*/lib/*' | sort)
fi
[[ ${#jobs[@]} -gt 0 ]] || { log "no e2e test files found"; exit 1; }
lane_args=()

# 4. the core on n8n 1.x, which self-hosted users still run, in the same lanes: every resource of
#    both action nodes and the webhook trigger with a signed delivery (E2E_N8N_V1=0 skips it)
if [[ $# -eq 0 && "${E2E_N8N_V1:-1}" != "0" ]]; then
	t0=$(date +%s)
	N8N_VERSION="${N8N_V1_VERSION:-1.123.81}" bash scripts/provision-n8n.sh >"$work_dir/v1.env"
	log "n8n 1.x ready in $(($(date +%s) - t0)) s"
	lane_args+=(--env "v1=$work_dir/v1.env")
	jobs+=(v1:test/e2e/operations.e2e.ts v1:test/e2e/trigger.e2e.ts)
fi
log "running ${#jobs[@]} file(s): ${jobs[*]}"
status=0
# The lane count is E2E_LANES, read by e2e-lanes.mjs (its default there), which prints it.
node scripts/e2e-lanes.mjs "${lane_args[@]}" "${jobs[@]}" || status=$?
log "e2e finished with status $status; screenshots, timings and logs in $repo_root/test-output/e2e"
exit "$status"
