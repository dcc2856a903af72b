#!/usr/bin/env bash
# The test command: build, lint, n8n's package scanner, actionlint, then every test layer from
# fast to real. The package is built and packed once; every later step uses that tarball.
# At the end it prints each stage's seconds and the ten slowest e2e files, and writes them to
# test-output/test-times.txt (CI prints that file beside its log).
set -euo pipefail
cd "$(dirname "$0")/.."

times_file=test-output/test-times.txt
mkdir -p test-output
stages=()
stage_name=''
stage_started=0
run_started=$(date +%s)

# Closes the running stage (its seconds into the table) and opens the next.
step() {
	local now
	now=$(date +%s)
	[[ -n "$stage_name" ]] && stages+=("$(printf '%6d s  %s' $((now - stage_started)) "$stage_name")")
	stage_name=$1
	stage_started=$now
	[[ -n "$stage_name" ]] && printf '\n== %s\n' "$stage_name"
	return 0
}

# The stage table and the slowest e2e files, printed and written, whatever the outcome.
report() {
	local status=$?
	step ''
	{
		printf '\nnpm test: %s in %d s\n' "$([[ $status -eq 0 ]] && echo passed || echo "FAILED (exit $status)")" $(($(date +%s) - run_started))
		printf '%s\n' "${stages[@]}"
		[[ -s test-output/e2e/totals.txt ]] && printf '\ne2e: %s\n' "$(cat test-output/e2e/totals.txt)"
		if [[ -s test-output/e2e/files.tsv ]]; then
			printf '\nthe ten slowest e2e files (seconds; several run at once; their CPU seconds where GNU time measured them,\nthe n8n of a file on its lane'"'"'s shared server not included: the e2e line above counts it):\n'
			tail -n +2 test-output/e2e/files.tsv | head -n 10 |
				awk -F'\t' '{ printf "%6d s  %s%s\n", $2, $1, ($3 == "" ? "" : sprintf(" (%d s CPU)", $3)) }'
		fi
	} | tee "$times_file"
	rm -rf "$pack_dir"
}
pack_dir=$(mktemp -d "${TMPDIR:-/tmp}/n8n-test-pack-XXXXXX")
rm -f "$times_file"
trap report EXIT

step "build and pack (once: every later step uses this tarball)"
npm run build
tarball_name=$(npm pack --silent --ignore-scripts --pack-destination "$pack_dir" | tail -n 1)
export PACKAGE_TARBALL="$pack_dir/$tarball_name" E2E_PACKAGE_TARBALL="$pack_dir/$tarball_name"
[[ -f "$PACKAGE_TARBALL" ]] || { echo "npm pack produced no tarball" >&2; exit 1; }

step "lint (n8n's community-node rules on package.json, nodes/ and credentials/)"
npm run lint

step "no import circles in nodes/ and credentials/ (madge)"
npm run check:circles

step "no export without a production importer (knip --production)"
npm run check:exports

step "each file where its users are, no function over 60 lines (scripts/checkLayout.ts)"
npm run check:layout

step "package: its files, n8n's security scanner on the source and the tarball"
npm run check:package

step "runtime and tools (Node 24, n8n, verdaccio, actionlint; cached outside the repository)"
provision_env=$(bash scripts/provision-n8n.sh)
while IFS='=' read -r key value; do
	[[ "$key" =~ ^[A-Z0-9_]+$ ]] && export "$key=$value"
done <<<"$provision_env"

step "actionlint (.github/workflows)"
shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
shopt -u nullglob
[[ ${#workflows[@]} -gt 0 ]] || { echo "no workflow files under .github/workflows" >&2; exit 1; }
"$N8N_NODE_BIN" "$ACTIONLINT_BIN" '.github/workflows/*.{yml,yaml}'

step "type-check tests"
npm run typecheck

step "unit, contract and workflow tests (jest, 3 workers: the budget suites wait on real time)"
npx jest --ci --maxWorkers=3

step "end to end in a real n8n (2.x in parallel lanes, and the core on 1.x)"
bash scripts/e2e.sh
