#!/usr/bin/env bash
# Runs every check and every test: the lockfile guard, lint and format (Biome), build,
# typecheck, package lint (publint + attw), then the whole vitest suite. Prints
# `N passed, N failed` from vitest's JSON report and exits non-zero on any failure.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$ROOT/scripts/bootstrap.sh"
# shellcheck source=env.sh
source "$ROOT/scripts/env.sh"
cd "$ROOT"
export NO_COLOR=1 FORCE_COLOR=0

if grep -qE 'https?://|tarball:' pnpm-lock.yaml || grep -q '"resolved"' .toolchain/package-lock.json .toolchain/registry/package-lock.json; then
  echo "lockfile records a registry URL; it must not" >&2
  exit 1
fi

# Lint and format check (Biome, biome.jsonc): DESIGN.md's layering, import cycles, the house format.
pnpm run --silent lint

turbo run build typecheck lint:pkg --output-logs=errors-only

bash "$ROOT/scripts/ensure-chromium.sh" # the viewer's browser tests drive Debian's chromium (installed with apt when missing)
report="$ROOT/.vitest-report.json"
rm -f "$report"
status=0
vitest run --reporter=default --reporter=json --outputFile.json="$report" "$@" || status=$?
bash "$ROOT/scripts/mcp-conformance.sh" || status=1 # the official MCP conformance suite, client mode: prints its pass count
node scripts/test-summary.ts "$report" || status=1
exit "$status"
