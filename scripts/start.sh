#!/usr/bin/env bash
# `npm start`: the local demo, on 127.0.0.1 only.
#   1. provisions n8n (scripts/provision-n8n.sh: Node 24, n8n and verdaccio, cached outside the
#      repository; a few minutes the first time, about a second after that);
#   2. builds the package and packs it as npm would publish it (npm pack);
#   3. runs test/e2e/start-demo.ts: the stand-in service (test/fake-service) with demo data, a
#      local npm registry (verdaccio) with the package published to it, and n8n, which installs
#      the package from it with its own community-package installer; a credential for the
#      service, the example workflows (examples/) and an owner account; it prints the editor
#      address and the login.
# Ctrl-C, or SIGINT/SIGTERM to any of its processes, stops n8n, the registry and the service and
# removes their data.
#
# Variables: DEMO_N8N_PORT (5678), DEMO_SERVICE_PORT (4010) (0, or a taken port: a free one),
# N8N_CACHE_DIR (where n8n is provisioned), DEMO_PACKAGE_TARBALL (a tarball already packed: no build).
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
		while read -r group; do
			[[ "$group" =~ ^[0-9]+$ ]] || continue
			if kill -0 -- "-$group" 2>/dev/null; then
				kill -TERM -- "-$group" 2>/dev/null || true
				for _ in $(seq 1 50); do kill -0 -- "-$group" 2>/dev/null || break; sleep 0.2; done
				kill -KILL -- "-$group" 2>/dev/null || true
			fi
		done <"$work/n8n.pid"
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

# Under npm, a signal to npm alone (an IDE's stop button, `timeout 300 npm start`) or to its
# `sh -c` need not reach this script: stop as well when any of them goes away. The ancestors up to
# npm's own process are watched.
if [[ -n "${npm_lifecycle_event:-}" ]]; then
	ancestors=()
	pid=$PPID
	for _ in 1 2 3; do
		[[ "$pid" =~ ^[0-9]+$ && "$pid" -gt 1 ]] || break
		ancestors+=("$pid")
		# npm's own process: node running npm-cli.js (or a binary named npm)
		if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -Eq '(^|/)npm(-cli\.js)?( |$)'; then break; fi
		pid=$(awk '{print $4}' "/proc/$pid/stat" 2>/dev/null || echo 0)
	done
	(
		trap - INT TERM HUP EXIT
		while true; do
			for ancestor in "${ancestors[@]}"; do kill -0 "$ancestor" 2>/dev/null || { kill -TERM $$ 2>/dev/null; exit 0; }; done
			sleep 0.5
		done
	) &
	watchdog=$!
fi

log "provisioning n8n and verdaccio (cached after the first time)"
provision_env=$(N8N_SKIP_CHROMIUM=1 bash scripts/provision-n8n.sh)
while IFS='=' read -r key value; do
	[[ "$key" =~ ^[A-Z0-9_]+$ ]] && export "$key=$value"
done <<<"$provision_env"

if [[ -n "${DEMO_PACKAGE_TARBALL:-}" ]]; then
	[[ -f "$DEMO_PACKAGE_TARBALL" ]] || { log "DEMO_PACKAGE_TARBALL=$DEMO_PACKAGE_TARBALL does not exist"; exit 1; }
	log "using the packed $DEMO_PACKAGE_TARBALL"
else
	log "building and packing the package (npm pack)"
	tarball=$(npm pack --silent --pack-destination "$work" | tail -n 1)
	[[ -f "$work/$tarball" ]] || { log "npm pack produced no tarball"; exit 1; }
	export DEMO_PACKAGE_TARBALL="$work/$tarball"
fi
export DEMO_PID_FILE="$work/n8n.pid"

node --require ts-node/register/transpile-only test/e2e/start-demo.ts &
child=$!
status=0
wait "$child" || status=$?
child=''
exit "$status"
