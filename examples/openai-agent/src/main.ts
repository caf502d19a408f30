// The quick-start task against the real OpenAI API: read notes/todo.txt, write summary.md,
// run the check — a real model deciding, the runtime validating, journaling and verifying.
//
//   OPENAI_API_KEY=sk-… node src/main.ts [--model gpt-5-mini] [--api responses|chat] [--dir D]
//
// Without OPENAI_API_KEY it explains itself and exits 0 (this is what CI runs).
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "gpt-5-mini" },
    api: { type: "string", default: "responses" },
    dir: { type: "string", default: ".yoke-openai-agent" },
  },
});

if (!process.env.OPENAI_API_KEY) {
  console.log(`examples/openai-agent runs the quick-start task (summarize notes/todo.txt into summary.md,
then run the check) against the real OpenAI API through @yoke/provider-openai, journaling
every step in SQLite.

OPENAI_API_KEY is not set, so nothing was sent. To run it:

  OPENAI_API_KEY=sk-… node src/main.ts [--model ${values.model}] [--api responses|chat]

The same adapter is tested offline against recorded wire traffic: see
packages/provider-openai/src/*.test.ts.`);
  process.exit(0);
}

// Loaded only when there is a key, so the explanation above needs nothing else.
const { runAgent } = await import("../../quickstart/src/run-agent.ts");
const { createOpenAIProvider } = await import("@yoke/provider-openai");
const api = values.api === "chat" ? "chat" : "responses";
const outcome = await runAgent(createOpenAIProvider({ model: values.model!, api }), values.dir!);
process.exit(outcome === "verified_success" ? 0 : 1);
