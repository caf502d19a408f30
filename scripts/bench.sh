#!/usr/bin/env bash
# pnpm bench: builds what the benchmarks import, then runs them (bench/run.ts).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$ROOT/scripts/bootstrap.sh"
# shellcheck source=env.sh
source "$ROOT/scripts/env.sh"
cd "$ROOT"
turbo run build --filter=@yoke/bench... --output-logs=errors-only >/dev/null
exec node bench/run.ts "$@"
