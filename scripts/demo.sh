#!/usr/bin/env bash
# Runs the quick-start demo (examples/quickstart). Extra arguments go to the demo:
#   --crash-after N   kill this process with SIGKILL right after the Nth durable append
#   --resume          finish the run left by a crash
# `bash scripts/demo.sh reference [--crash-at N:POINT | --resume]` runs the action-transaction
# reference scenario instead (examples/quickstart/src/reference.ts).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
YOKE_BOOTSTRAP_NO_REGISTRY=1 bash "$ROOT/scripts/bootstrap.sh"
# shellcheck source=env.sh
source "$ROOT/scripts/env.sh"
cd "$ROOT"
turbo run build --filter=@yoke/example-quickstart... --output-logs=errors-only >/dev/null
if [ "${1:-}" = "reference" ]; then
  shift
  exec node examples/quickstart/src/reference.ts "$@"
fi
exec node examples/quickstart/src/main.ts "$@"
