// Time to the first streamed token: a run started with `harness.stream` (a new run journaled,
// its request compiled and journaled, the model called through the adapter, the first text
// delta handed to the stream's reader) against the adapter alone (`generate` with
// `onStreamPart`, to its first text delta), on the same recorded stream from the same loopback
// replay server, calls paired one by one in one process. Each call is read to its end before
// the next. Prints JSON: median µs to the first token for each side (memory and SQLite
// journals), the median per-round ratios.
// usage: node first-token.ts <openai|anthropic|ai-sdk> <callsPerRound> <rounds>
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { createMemoryJournal, createSqliteJournal } from "@yoke/journal";
import type { ModelRequest, ProviderAdapterV1 } from "@yoke/protocol";
import { createAiSdkProvider } from "@yoke/provider-ai-sdk";
import { createAnthropicProvider } from "@yoke/provider-anthropic";
import { createOpenAIProvider } from "@yoke/provider-openai";
import { createHarness, silentLogger, type Harness } from "@yoke/runtime";
import { createReplayServer } from "@yoke/testkit/replay";
import { benchDir, median } from "./stats.ts";

const [providerName = "openai", perRoundText = "200", roundsText = "5"] = process.argv.slice(2);
const perRound = Number(perRoundText);
const rounds = Number(roundsText);
const sse = readFileSync(join(benchDir, "..", "packages", `provider-${providerName}`, "src", "__fixtures__", "text.sse"), "utf8");
const server = await createReplayServer();
const request: ModelRequest = { messages: [{ role: "user", content: [{ type: "text", text: "Say hello." }] }], tools: [] };

function adapterFor(name: string): ProviderAdapterV1 {
  if (name === "anthropic") return createAnthropicProvider({ model: "claude-sonnet-4-6", baseURL: server.url, apiKey: "sk-ant-bench" });
  if (name === "ai-sdk") {
    const model = createOpenAICompatible({ name: "bench", baseURL: `${server.url}/v1`, apiKey: "sk-bench", includeUsage: true }).chatModel("qwen3-8b-instruct");
    return createAiSdkProvider({ model });
  }
  return createOpenAIProvider({ model: "gpt-5-mini", baseURL: `${server.url}/v1`, apiKey: "sk-bench" });
}

const adapter = adapterFor(providerName);
const dir = mkdtempSync(join(tmpdir(), "yoke-first-token-"));
const memory = createHarness({ journal: createMemoryJournal(), provider: adapter, tools: [], tenantId: "tenant_bench", logger: silentLogger() });
const sqliteJournal = await createSqliteJournal({ filename: join(dir, "yoke.sqlite") });
const sqlite = createHarness({
  journal: sqliteJournal,
  provider: adapter,
  tools: [],
  tenantId: "tenant_bench",
  logger: silentLogger(),
});

/** µs from the call to the first text delta; the call is then read to its end. */
async function viaAdapter(): Promise<number> {
  const start = process.hrtime.bigint();
  let first: bigint | undefined;
  await adapter.generate(request, {
    onStreamPart: (part) => {
      if (part.type === "text-delta") first ??= process.hrtime.bigint();
    },
  });
  if (first === undefined) throw new Error("the recorded stream has no text delta");
  return Number(first - start) / 1e3;
}

async function viaYoke(harness: Harness): Promise<number> {
  const start = process.hrtime.bigint();
  let first: bigint | undefined;
  const stream = harness.stream("Say hello.");
  for await (const part of stream) if (part.type === "text-delta") first ??= process.hrtime.bigint();
  const { outcome } = await stream.result;
  if (outcome?.status !== "completed" || first === undefined) throw new Error(`the run did not stream its answer (${outcome?.status})`);
  return Number(first - start) / 1e3;
}

// One round: each side `perRound` times, interleaved (the order rotates) so drift lands on all alike.
async function round(): Promise<{ adapter: number; memory: number; sqlite: number }> {
  server.enqueue(...Array.from({ length: 3 * perRound }, () => ({ sse })));
  const sums = { adapter: 0, memory: 0, sqlite: 0 };
  const sides = [
    ["adapter", viaAdapter],
    ["memory", () => viaYoke(memory)],
    ["sqlite", () => viaYoke(sqlite)],
  ] as const;
  for (let index = 0; index < perRound; index++) {
    for (let offset = 0; offset < sides.length; offset++) {
      const [name, call] = sides[(index + offset) % sides.length]!;
      sums[name] += await call();
    }
  }
  return { adapter: sums.adapter / perRound, memory: sums.memory / perRound, sqlite: sums.sqlite / perRound };
}

await round(); // warm-up: connections, JIT
const results: { adapter: number; memory: number; sqlite: number }[] = [];
for (let index = 0; index < rounds; index++) results.push(await round());
await server.close();
await sqliteJournal.close();
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify({
    provider: providerName,
    calls: perRound,
    adapterUs: median(results.map((result) => result.adapter)),
    memoryUs: median(results.map((result) => result.memory)),
    sqliteUs: median(results.map((result) => result.sqlite)),
    memoryRatio: median(results.map((result) => result.memory / result.adapter)),
    sqliteRatio: median(results.map((result) => result.sqlite / result.adapter)),
  }),
);
