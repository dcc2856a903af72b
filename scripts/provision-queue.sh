#!/usr/bin/env bash
# What n8n's queue mode needs in the end-to-end tests and the benchmark: PostgreSQL and Redis
# from Debian's packages. Installs them with apt-get only when missing (the second run takes
# no time: the packages stay installed, like the n8n cache), starts nothing, and prints
#   PG_BIN=<folder with initdb, postgres, pg_isready, psql>
#   REDIS_SERVER=<path of redis-server>
# for the tests, which start private instances on 127.0.0.1 and free ports and stop them.
set -euo pipefail

log() { printf '[provision-queue] %s\n' "$*" >&2; }

find_pg_bin() {
	local dir
	for dir in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
		if [[ -x "$dir/initdb" && -x "$dir/postgres" && -x "$dir/pg_isready" ]]; then
			echo "$dir"
			return 0
		fi
	done
	return 1
}

missing=()
find_pg_bin >/dev/null || missing+=(postgresql)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)

if ((${#missing[@]} > 0)); then
	log "installing ${missing[*]} from Debian's packages"
	run() { if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo -n "$@"; fi; }
	export DEBIAN_FRONTEND=noninteractive
	# A package list from an earlier apt-get update is enough; refresh it only when it is not.
	if ! run apt-get install -y --no-install-recommends "${missing[@]}" >&2; then
		run apt-get update >&2
		run apt-get install -y --no-install-recommends "${missing[@]}" >&2
	fi
fi

pg_bin=$(find_pg_bin) || { log "PostgreSQL's initdb was not found after the install"; exit 1; }
redis=$(command -v redis-server) || { log "redis-server was not found after the install"; exit 1; }
log "PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') at $pg_bin; Redis $("$redis" --version | sed 's/.*v=\([^ ]*\).*/\1/') at $redis"
echo "PG_BIN=$pg_bin"
echo "REDIS_SERVER=$redis"
