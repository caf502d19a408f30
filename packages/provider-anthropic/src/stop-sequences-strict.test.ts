import { afterEach, describe, expect, it } from "vitest";
import type { JsonValue, ToolSpec } from "@yoke/protocol";
import { createAnthropicProvider } from "./index.js";
import { ask, fixture, rejection, replay, weatherTool, type Replay } from "./__fixtures__/test-support.js";

let current: Replay | undefined;
async function open(...args: Parameters<typeof replay>): Promise<Replay> {
  await current?.server.close();
  current = await replay(...args);
  return current;
}
afterEach(async () => {
  await current?.server.close();
  current = undefined;
});

const strictTool = (inputSchema: { [key: string]: JsonValue }): ToolSpec => ({ name: "book", description: "Book seats.", inputSchema, strict: true });
const object = (properties: { [key: string]: JsonValue }, extra: { [key: string]: JsonValue } = {}) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
  ...extra,
});

describe("stop sequences", () => {
  it("are sent as stop_sequences; the matched one ends the turn and is kept in providerMetadata.anthropic", async () => {
    const { server, provider } = await open([fixture("stop-sequence.sse")]);
    const response = await provider.generate(ask("List the steps", { stopSequences: ["\nStep 2:", "END"] }));
    expect((server.requests[0]!.body as { stop_sequences?: unknown }).stop_sequences).toEqual(["\nStep 2:", "END"]);
    expect(response).toMatchObject({
      stopReason: "end_turn",
      rawStopReason: "stop_sequence",
      content: [{ type: "text", text: "Step 1: read the file." }],
      providerMetadata: { anthropic: { stopSequence: "\nStep 2:" } },
      usage: { inputTokens: 30, outputTokens: 8, uncachedInputTokens: 30, totalTokens: 38 },
    });
  });

  it("are declared in the capability matrix, and more than it allows is refused before any request", async () => {
    expect(createAnthropicProvider({ model: "claude-sonnet-4-6" }).capabilities.maxStopSequences).toBe(8_191);
    const { server, provider } = await open([], { capabilities: { maxStopSequences: 2 } });
    const error = await rejection(provider.generate(ask("hi", { stopSequences: ["a", "b", "c"] })));
    expect(error.code).toBe("PROVIDER_ADMISSION_REJECTED");
    expect(server.requests).toHaveLength(0);
  });
});

describe("strict tools", () => {
  it("are declared for Claude 4.5 and later models, and strict: true goes out on the tool", async () => {
    const strict = [
      "claude-opus-4-5",
      "claude-sonnet-4-5-20250929",
      "claude-sonnet-4-6",
      "claude-haiku-4-5",
      "claude-opus-4-1",
      "claude-sonnet-4-20250514",
      "claude-3-5-haiku-latest",
      "claude-next",
    ].map((model) => [model, createAnthropicProvider({ model }).capabilities.strictTools === true]);
    expect(strict).toEqual([
      ["claude-opus-4-5", true],
      ["claude-sonnet-4-5-20250929", true],
      ["claude-sonnet-4-6", true],
      ["claude-haiku-4-5", true],
      ["claude-opus-4-1", false],
      ["claude-sonnet-4-20250514", false],
      ["claude-3-5-haiku-latest", false],
      ["claude-next", false],
    ]);
    const { server, provider } = await open([fixture("tool-call.sse")]);
    const book = strictTool(object({ passengers: { type: "integer" }, when: { type: "string", format: "date" } }));
    await provider.generate(ask("Book 2 seats", { tools: [book, weatherTool] }));
    const tools = (server.requests[0]!.body as { tools: { name: string; strict?: boolean }[] }).tools;
    expect(tools.map((tool) => [tool.name, tool.strict])).toEqual([
      ["book", true],
      ["get_weather", undefined],
    ]);
  });

  it("are refused, never silently sent loose, on a model without strict tool use or with a schema strict mode cannot take", async () => {
    const { server, provider } = await open([]);
    const loose = await replay([], { model: "claude-sonnet-4-20250514" });
    const defs = { $defs: { node: object({ next: { $ref: "#/$defs/node" } }) } };
    const cases: [string, () => Promise<unknown>][] = [
      ["strict tool use", () => loose.provider.generate(ask("hi", { tools: [strictTool(object({ n: { type: "integer" } }))] }))],
      ["additionalProperties: false", () => provider.generate(ask("hi", { tools: [strictTool({ type: "object", properties: { n: { type: "integer" } } })] }))],
      ["minimum", () => provider.generate(ask("hi", { tools: [strictTool(object({ n: { type: "integer", minimum: 1 } }))] }))],
      ["maxLength", () => provider.generate(ask("hi", { tools: [strictTool(object({ s: { type: "array", items: { type: "string", maxLength: 3 } } }))] }))],
      ["minItems", () => provider.generate(ask("hi", { tools: [strictTool(object({ s: { type: "array", items: { type: "string" }, minItems: 2 } }))] }))],
      ["recursive", () => provider.generate(ask("hi", { tools: [strictTool(object({ head: { $ref: "#/$defs/node" } }, defs))] }))],
      ["local $refs", () => provider.generate(ask("hi", { tools: [strictTool(object({ head: { $ref: "https://example.com/node.json" } }))] }))],
    ];
    for (const [reason, call] of cases) {
      const error = await rejection(call());
      expect([error.code, error.message.includes(reason)], reason).toEqual(["PROVIDER_ADMISSION_REJECTED", true]);
    }
    const many = Array.from({ length: 21 }, (_, index) => ({ ...strictTool(object({})), name: `tool_${index}` }));
    expect((await rejection(provider.generate(ask("hi", { tools: many })))).message).toContain("at most 20");
    expect(server.requests).toHaveLength(0);
    expect(loose.server.requests).toHaveLength(0);
    await loose.server.close();
  });
});
