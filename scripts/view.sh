#!/usr/bin/env bash
# Opens the run viewer on the quick-start demo's journal: runs the demo first when its journal
# is not there yet, then serves `yoke view` on 127.0.0.1 and prints the URL (Ctrl-C stops it).
#   --dir DIR   the demo's directory (default .yoke-demo, as `bash scripts/demo.sh` writes it)
# Other arguments go to `yoke view` (e.g. `--port 8080`, a run id).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
YOKE_BOOTSTRAP_NO_REGISTRY=1 bash "$ROOT/scripts/bootstrap.sh"
# shellcheck source=env.sh
source "$ROOT/scripts/env.sh"
cd "$ROOT"
dir=".yoke-demo"
if [ "${1:-}" = "--dir" ]; then
  dir="$2"
  shift 2
fi
turbo run build --filter=@yoke/example-quickstart... --filter=@yoke/cli... --output-logs=errors-only >/dev/null
if [ ! -f "$dir/journal.sqlite" ]; then
  node examples/quickstart/src/main.ts --dir "$dir" >/dev/null
fi
exec node packages/cli/dist/bin.js view --journal "$dir/journal.sqlite" "$@"
