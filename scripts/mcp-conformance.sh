#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance, from node_modules) in
# client mode against Yoke's MCP client: tests/mcp-servers/conformance-client.mjs, built on
# @yoke/mcp's mcpHttpSource. Runs the client scenarios about initialization and tools, each
# against the suite's own server on localhost, prints the pass count, and fails when a
# scenario Yoke claims does not pass. Not claimed: elicitation-sep1034-client-defaults (Yoke's
# client declares no elicitation capability) and auth/* (OAuth flows; a source takes static
# headers).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=env.sh
source "$ROOT/scripts/env.sh"
cd "$ROOT"
[ -f packages/mcp/dist/index.js ] || turbo run build --filter=@yoke/mcp --output-logs=errors-only >/dev/null

scenarios=(initialize tools_call sse-retry)
suite=tests/mcp-servers/node_modules/@modelcontextprotocol/conformance/dist/index.js
client="node $ROOT/tests/mcp-servers/conformance-client.mjs"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

passed=() failed=() checks_passed=0 checks_total=0
for scenario in "${scenarios[@]}"; do
  log="$out/${scenario//\//_}.log"
  if NO_COLOR=1 node --no-deprecation "$suite" client --command "$client" --scenario "$scenario" --timeout 20000 -o "$out/results" >"$log" 2>&1; then
    passed+=("$scenario")
  else
    failed+=("$scenario")
    echo "--- MCP conformance scenario $scenario failed:" >&2
    tail -n 30 "$log" >&2
  fi
  # "Passed: 3/3, 0 failed, 0 warnings": the scenario's checks.
  if counts=$(grep -oE 'Passed: [0-9]+/[0-9]+' "$log" | tail -1); then
    n=${counts#Passed: }
    checks_passed=$((checks_passed + ${n%/*}))
    checks_total=$((checks_total + ${n#*/}))
  fi
done

echo "MCP conformance (client mode): ${#passed[@]}/${#scenarios[@]} scenarios passed (${passed[*]:-none}), ${checks_passed}/${checks_total} checks"
[ "${#failed[@]}" -eq 0 ] || { echo "MCP conformance: failed: ${failed[*]}" >&2; exit 1; }
