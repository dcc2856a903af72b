#!/usr/bin/env bash
# The test command: build, lint, then every test layer from fast to real.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$1"; }

step "build"
npm run build

step "lint"
npm run lint

step "type-check tests"
npm run typecheck

step "unit, contract and workflow tests"
npx jest --ci

if [ -f scripts/e2e.sh ]; then
	step "end to end in a real n8n"
	bash scripts/e2e.sh
fi
