// The quick-start task against the real Anthropic API: read notes/todo.txt, write summary.md,
// run the check — a real model deciding, the runtime validating, journaling and verifying.
//
//   ANTHROPIC_API_KEY=sk-ant-… node src/main.ts [--model claude-sonnet-4-6] [--dir D]
//
// Without ANTHROPIC_API_KEY it explains itself and exits 0 (this is what CI runs).
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "claude-sonnet-4-6" },
    dir: { type: "string", default: ".yoke-anthropic-agent" },
  },
});

if (!process.env.ANTHROPIC_API_KEY) {
  console.log(`examples/anthropic-agent runs the quick-start task (summarize notes/todo.txt into summary.md,
then run the check) against the real Anthropic API through @yoke/provider-anthropic, journaling
every step in SQLite.

ANTHROPIC_API_KEY is not set, so nothing was sent. To run it:

  ANTHROPIC_API_KEY=sk-ant-… node src/main.ts [--model ${values.model}]

The same adapter is tested offline against recorded wire traffic: see
packages/provider-anthropic/src/*.test.ts.`);
  process.exit(0);
}

// Loaded only when there is a key, so the explanation above needs nothing else.
const { runAgent } = await import("../../quickstart/src/run-agent.ts");
const { createAnthropicProvider } = await import("@yoke/provider-anthropic");
const outcome = await runAgent(createAnthropicProvider({ model: values.model! }), values.dir!);
process.exit(outcome === "verified_success" ? 0 : 1);
