// Adapter overhead per streamed response: the Yoke provider adapter (request mapping,
// admission, stream folding, response mapping, the finish part) against the raw SDK
// consuming the same recorded stream from the same loopback replay server, with the same
// SDK client, calls paired one by one in one process. Prints JSON: median µs per response for
// each side, the median per-round ratio, and the overhead in µs.
// For ai-sdk, "raw" is the AI SDK model itself (@ai-sdk/openai-compatible's doStream, read to
// its end) and the adapter is the bridge over that same model.
// usage: node provider-stream.ts <openai|anthropic|ai-sdk> <responsesPerRound> <rounds>
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { ModelRequest, ProviderAdapterV1 } from "@yoke/protocol";
import { createAiSdkProvider } from "@yoke/provider-ai-sdk";
import { createAnthropicProvider } from "@yoke/provider-anthropic";
import { createOpenAIProvider } from "@yoke/provider-openai";
import { createReplayServer } from "@yoke/testkit/replay";
import { benchDir, median } from "./stats.ts";

const [providerName = "openai", perRoundText = "1000", roundsText = "5"] = process.argv.slice(2);
const perRound = Number(perRoundText);
const rounds = Number(roundsText);
const fixture = (name: string) => readFileSync(join(benchDir, "..", "packages", `provider-${providerName}`, "src", "__fixtures__", name), "utf8");
const sse = fixture("text.sse");
const server = await createReplayServer();
const request: ModelRequest = { messages: [{ role: "user", content: [{ type: "text", text: "Say hello." }] }], tools: [] };

let adapter: ProviderAdapterV1;
let raw: () => Promise<void>;
if (providerName === "anthropic") {
  const client = new Anthropic({ apiKey: "sk-ant-bench", baseURL: server.url, maxRetries: 0 });
  adapter = createAnthropicProvider({ model: "claude-sonnet-4-6", client });
  raw = async () => {
    const stream = await client.messages.create({
      model: "claude-sonnet-4-6",
      max_tokens: 4096,
      messages: [{ role: "user", content: [{ type: "text", text: "Say hello." }] }],
      stream: true,
    });
    for await (const _event of stream);
  };
} else if (providerName === "ai-sdk") {
  const model = createOpenAICompatible({ name: "bench", baseURL: `${server.url}/v1`, apiKey: "sk-bench", includeUsage: true }).chatModel("qwen3-8b-instruct");
  adapter = createAiSdkProvider({ model });
  raw = async () => {
    const { stream } = await model.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "Say hello." }] }] });
    const reader = stream.getReader();
    while (!(await reader.read()).done);
  };
} else {
  const client = new OpenAI({ apiKey: "sk-bench", baseURL: `${server.url}/v1`, maxRetries: 0 });
  adapter = createOpenAIProvider({ model: "gpt-5-mini", client });
  raw = async () => {
    const stream = await client.responses.create({
      model: "gpt-5-mini",
      input: [{ role: "user", content: [{ type: "input_text", text: "Say hello." }] }],
      store: false,
      stream: true,
    });
    for await (const _event of stream);
  };
}

// One round: `perRound` responses on each side, paired call by call (the side that goes first
// alternates) so drift on a shared machine lands on both sides alike. Returns µs per response.
async function round(): Promise<{ adapter: number; raw: number }> {
  server.enqueue(...Array.from({ length: 2 * perRound }, () => ({ sse })));
  let adapterNs = 0n;
  let rawNs = 0n;
  const timed = async (call: () => Promise<unknown>) => {
    const start = process.hrtime.bigint();
    await call();
    return process.hrtime.bigint() - start;
  };
  const viaAdapter = () => adapter.generate(request, { onStreamPart: () => {} });
  for (let index = 0; index < perRound; index++) {
    if (index % 2 === 0) {
      adapterNs += await timed(viaAdapter);
      rawNs += await timed(raw);
    } else {
      rawNs += await timed(raw);
      adapterNs += await timed(viaAdapter);
    }
  }
  return { adapter: Number(adapterNs) / 1e3 / perRound, raw: Number(rawNs) / 1e3 / perRound };
}

await round(); // warm-up: connections, JIT
const adapterUs: number[] = [];
const rawUs: number[] = [];
for (let index = 0; index < rounds; index++) {
  const result = await round();
  adapterUs.push(result.adapter);
  rawUs.push(result.raw);
}
await server.close();
const ratios = adapterUs.map((value, index) => value / rawUs[index]!);
console.log(
  JSON.stringify({
    provider: providerName,
    responses: perRound,
    streamBytes: Buffer.byteLength(sse),
    adapterUs: median(adapterUs),
    rawUs: median(rawUs),
    ratio: median(ratios),
    overheadUs: median(adapterUs.map((value, index) => value - rawUs[index]!)),
  }),
);
