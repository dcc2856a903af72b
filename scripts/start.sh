#!/usr/bin/env bash
# `npm start`: the local demo, on 127.0.0.1 only.
#   1. builds the package and packs it as npm would publish it;
#   2. provisions n8n (scripts/provision-n8n.sh: Node 24 + n8n, cached outside the repository;
#      a few minutes the first time, about a second after that);
#   3. runs test/e2e/start-demo.ts: the stand-in service (test/fake-service) with demo data, and
#      n8n with the package installed as a community package, a credential for the service, the
#      example workflows (examples/) and an owner account; it prints the editor address and the
#      login.
# Ctrl-C (or SIGTERM) stops n8n and the service and removes their data.
#
# Variables: DEMO_N8N_PORT (5678), DEMO_SERVICE_PORT (4010) (0, or a taken port: a free one),
# N8N_CACHE_DIR (where n8n is provisioned).
set -euo pipefail

cd "$(dirname "$0")/.."
DEMO_STARTED_AT=$(($(date +%s%N) / 1000000))
export DEMO_STARTED_AT

log() { printf '[start] %s\n' "$*" >&2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/n8n-social-aggregator-start-XXXXXX")
child=''
watchdog=''

# Stops the demo process (it stops n8n and the service), and n8n's process group should that
# process have died without doing so; removes the work folder.
cleanup() {
	if [[ -n "$watchdog" ]]; then kill "$watchdog" 2>/dev/null || true; fi
	if [[ -n "$child" ]] && kill -0 "$child" 2>/dev/null; then
		kill -TERM "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	if [[ -s "$work/n8n.pid" ]]; then
		n8n_pid=$(cat "$work/n8n.pid")
		if kill -0 -- "-$n8n_pid" 2>/dev/null; then
			kill -TERM -- "-$n8n_pid" 2>/dev/null || true
			for _ in $(seq 1 50); do kill -0 -- "-$n8n_pid" 2>/dev/null || break; sleep 0.2; done
			kill -KILL -- "-$n8n_pid" 2>/dev/null || true
		fi
	fi
	rm -rf "$work"
}
on_signal() {
	trap '' INT TERM
	local was_running=$child
	cleanup
	trap - EXIT
	# a stop after the demo was up is the normal end
	if [[ -n "$was_running" ]]; then exit 0; else exit 130; fi
}
trap cleanup EXIT
trap on_signal INT TERM HUP

# Under npm, a signal to npm alone (e.g. `timeout 300 npm start`) ends npm's `sh -c` but not this
# script: stop as well when that parent goes away.
if [[ -n "${npm_lifecycle_event:-}" ]]; then
	parent=$PPID
	(
		trap - INT TERM HUP EXIT
		while kill -0 "$parent" 2>/dev/null; do sleep 1; done
		kill -TERM $$ 2>/dev/null
	) &
	watchdog=$!
fi

log "building the package"
npm run --silent build >&2

log "provisioning n8n (cached after the first time)"
provision_env=$(N8N_SKIP_CHROMIUM=1 bash scripts/provision-n8n.sh)
while IFS='=' read -r key value; do
	[[ "$key" =~ ^[A-Z0-9_]+$ ]] && export "$key=$value"
done <<<"$provision_env"

log "packing the package"
tarball=$(npm pack --silent --pack-destination "$work" 2>/dev/null | tail -n 1)
[[ -f "$work/$tarball" ]] || { log "npm pack produced no tarball"; exit 1; }
export DEMO_PACKAGE_TARBALL="$work/$tarball"
export DEMO_PID_FILE="$work/n8n.pid"

node --require ts-node/register/transpile-only test/e2e/start-demo.ts &
child=$!
status=0
wait "$child" || status=$?
child=''
exit "$status"
