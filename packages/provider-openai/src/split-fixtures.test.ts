import { afterEach, describe, expect, it } from "vitest";
import type { ModelStreamPart } from "@yoke/protocol";
import { PROVIDER_CONTRACT_SEEDS } from "@yoke/testkit/contracts";
import { ask, collect, fixture, replay, weatherTool, type Replay } from "./__fixtures__/test-support.js";

let current: Replay | undefined;
afterEach(async () => {
  await current?.server.close();
  current = undefined;
});

// The refusal, truncated-call and multi-part-summary fixtures, served whole and then split at
// each contract seed's byte offsets: the response and the stream parts must not change.
const cases = [
  { file: "refusal.sse", options: {} },
  { file: "truncated-tool-call.sse", options: {} },
  { file: "e2e-truncated-turn-1.sse", options: {} },
  { file: "e2e-truncated-turn-2.sse", options: {} },
  { file: "reasoning-summary-parts.sse", options: {} },
  { file: "chat-refusal.sse", options: { api: "chat" as const, model: "gpt-4.1-mini" } },
  { file: "chat-truncated-tool-call.sse", options: { api: "chat" as const, model: "gpt-4.1-mini" } },
];

async function run(file: string, options: (typeof cases)[number]["options"], seed: number | undefined) {
  await current?.server.close();
  current = await replay([fixture(file)], options, seed === undefined ? {} : { seed });
  const { parts, onStreamPart } = collect();
  const response = await current.provider.generate(ask("go", { tools: [weatherTool] }), { onStreamPart });
  // Deltas may arrive in different pieces; what they spell, and every other part, may not differ.
  const spelled = (type: ModelStreamPart["type"]) => parts.flatMap((part) => (part.type === type && "text" in part ? [part.text] : [])).join("");
  const shape = parts.filter((part) => !part.type.endsWith("-delta"));
  return { response, shape, text: spelled("text-delta"), refusal: spelled("refusal-delta"), reasoning: spelled("reasoning-delta") };
}

describe("the new fixtures under seeded split patterns", () => {
  for (const { file, options } of cases) {
    it(`${file} maps the same whole and split at ${PROVIDER_CONTRACT_SEEDS.length} seeds' offsets`, async () => {
      const whole = await run(file, options, undefined);
      for (const seed of PROVIDER_CONTRACT_SEEDS) expect(await run(file, options, seed), `seed ${seed}`).toEqual(whole);
    });
  }
});
