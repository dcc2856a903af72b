#!/usr/bin/env bash
# End-to-end tests: a real n8n (provisioned and cached by scripts/provision-n8n.sh) with the
# packed package installed as a community package, the fake service as backend, the editor in
# headless Chromium. Runs test/e2e/**/*.e2e.ts with node's test runner, one file at a time.
#
#   bash scripts/e2e.sh                      # all e2e tests
#   bash scripts/e2e.sh test/e2e/editor.e2e.ts   # some files
#
# Files named *.long.e2e.ts (the 5,000-delivery burst) run only when named: `npm run test:burst`.
#
# Useful variables: N8N_CACHE_DIR (cache folder), E2E_KEEP=1 (keep n8n user folders),
# E2E_TEST_TIMEOUT_MS (per test file, default 600000).
# Screenshots and timings land in test-output/e2e/.
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
t0=$(date +%s)
pack_dir=$(mktemp -d "${TMPDIR:-/tmp}/n8n-e2e-pack-XXXXXX")
cleanup() { rm -rf "$pack_dir"; }
trap cleanup EXIT
tarball_name=$(npm pack --silent --pack-destination "$pack_dir" | tail -n 1)
export E2E_PACKAGE_TARBALL="$pack_dir/$tarball_name"
[[ -f "$E2E_PACKAGE_TARBALL" ]] || { log "npm pack produced no tarball"; exit 1; }
log "packed $tarball_name in $(($(date +%s) - t0)) s"

# 3. the tests (they run under this machine's Node; n8n runs on Node 24)
mkdir -p test-output/e2e
# screenshots and timings of an earlier run would pass for this run's
rm -f test-output/e2e/*.png test-output/e2e/timings.jsonl
if [[ $# -gt 0 ]]; then
	files=("$@")
else
	mapfile -t files < <(find test/e2e -name '*.e2e.ts' -not -name '*.long.e2e.ts' -not -path '*/lib/*' | sort)
fi
[[ ${#files[@]} -gt 0 ]] || { log "no e2e test files found"; exit 1; }
log "running ${#files[@]} file(s): ${files[*]}"
status=0
node --require ts-node/register/transpile-only --test --test-concurrency=1 --test-reporter=spec \
	--test-timeout="${E2E_TEST_TIMEOUT_MS:-600000}" "${files[@]}" || status=$?

# 4. the core on n8n 1.x, which self-hosted users still run: every resource of both action
#    nodes and the webhook trigger with a signed delivery (E2E_N8N_V1=0 skips it)
if [[ $# -eq 0 && "${E2E_N8N_V1:-1}" != "0" ]]; then
	t0=$(date +%s)
	v1_env=$(N8N_VERSION="${N8N_V1_VERSION:-1.123.81}" bash scripts/provision-n8n.sh)
	log "n8n 1.x ready in $(($(date +%s) - t0)) s"
	(
		while IFS='=' read -r key value; do
			[[ "$key" =~ ^[A-Z0-9_]+$ ]] && export "$key=$value"
		done <<<"$v1_env"
		log "running the core on n8n $N8N_VERSION"
		node --require ts-node/register/transpile-only --test --test-concurrency=1 --test-reporter=spec \
			--test-timeout="${E2E_TEST_TIMEOUT_MS:-600000}" test/e2e/operations.e2e.ts test/e2e/trigger.e2e.ts
	) || status=$?
fi
log "e2e finished with status $status; screenshots and timings in $repo_root/test-output/e2e"
exit "$status"
