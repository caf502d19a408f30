// The quick-start task through the AI SDK bridge: read notes/todo.txt, write summary.md, run
// the check — any model behind an OpenAI-compatible server (Ollama, vLLM, LM Studio, a
// gateway) deciding, through @ai-sdk/openai-compatible and @yoke/provider-ai-sdk.
//
//   AI_SDK_BASE_URL=http://127.0.0.1:11434/v1 [AI_SDK_API_KEY=…] node src/main.ts [--model qwen3:8b] [--dir D]
//
// Without AI_SDK_BASE_URL it explains itself and exits 0.
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    model: { type: "string", default: "qwen3:8b" },
    dir: { type: "string", default: ".yoke-ai-sdk-agent" },
    "context-window": { type: "string", default: "32768" },
  },
});

const baseURL = process.env.AI_SDK_BASE_URL;
if (!baseURL) {
  console.log(`examples/ai-sdk-agent runs the quick-start task (summarize notes/todo.txt into summary.md,
then run the check) through @yoke/provider-ai-sdk, the bridge to any Vercel AI SDK language
model, here @ai-sdk/openai-compatible's chat model, journaling every step in SQLite.

AI_SDK_BASE_URL is not set, so nothing was sent. To run it against a local Ollama:

  AI_SDK_BASE_URL=http://127.0.0.1:11434/v1 node src/main.ts [--model ${values.model}]

(set AI_SDK_API_KEY too for a server that wants a key). The same bridge is tested offline
against recorded wire traffic: see packages/provider-ai-sdk/src/*.test.ts.`);
  process.exit(0);
}

// Loaded only when there is a server, so the explanation above needs nothing else.
const { runAgent } = await import("../../quickstart/src/run-agent.ts");
const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
const { createAiSdkProvider } = await import("@yoke/provider-ai-sdk");
const server = createOpenAICompatible({
  name: "openai-compatible",
  baseURL,
  includeUsage: true,
  ...(process.env.AI_SDK_API_KEY ? { apiKey: process.env.AI_SDK_API_KEY } : {}),
});
const provider = createAiSdkProvider({
  model: server.chatModel(values.model!),
  // The model declares no context size: say what the server gives it.
  capabilities: { contextWindow: Number(values["context-window"]) },
});
const outcome = await runAgent(provider, values.dir!);
process.exit(outcome === "verified_success" ? 0 : 1);
