#!/usr/bin/env bash
# The test command: build, lint, n8n's package scanner, actionlint, then every test layer from
# fast to real.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$1"; }

step "build"
npm run build

step "lint (n8n's community-node rules on package.json, nodes/ and credentials/)"
npm run lint

step "no import circles in nodes/ and credentials/ (madge)"
npm run check:circles

step "no export without a production importer (knip --production)"
npm run check:exports

step "each file where its users are, no function over 60 lines (scripts/checkLayout.ts)"
npm run check:layout

step "package: npm pack, its files, n8n's security scanner on the source and the tarball"
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

step "unit, contract and workflow tests"
npx jest --ci

step "end to end in a real n8n"
bash scripts/e2e.sh
