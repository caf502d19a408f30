import { afterEach, describe, expect, it } from "vitest";
import { YokeError } from "@yoke/protocol";
import { createAnthropicProvider } from "./index.js";
import { ask, rejection, replay, type Replay } from "./__fixtures__/test-support.js";

let current: Replay | undefined;
async function open(...args: Parameters<typeof replay>): Promise<Replay> {
  current = await replay(...args);
  return current;
}
afterEach(async () => {
  await current?.server.close();
  current = undefined;
});

describe("capability matrix and admission", () => {
  it("reports a matrix per model family", () => {
    const rows = ["claude-opus-4-5", "claude-opus-4-1", "claude-sonnet-4-6", "claude-haiku-4-5", "claude-3-5-haiku-latest", "claude-next"].map((model) => {
      const provider = createAnthropicProvider({ model });
      return [model, provider.family, provider.capabilities.maxOutputTokens, provider.capabilities.promptCaching];
    });
    expect(rows).toEqual([
      ["claude-opus-4-5", "claude-opus-4.5", 64_000, "breakpoints"],
      ["claude-opus-4-1", "claude-opus-4", 32_000, "breakpoints"],
      ["claude-sonnet-4-6", "claude-sonnet-4", 64_000, "breakpoints"],
      ["claude-haiku-4-5", "claude-haiku-4", 64_000, "breakpoints"],
      ["claude-3-5-haiku-latest", "claude-3.5-haiku", 8_192, "breakpoints"],
      ["claude-next", "default", 4_096, "breakpoints"],
    ]);
    expect(createAnthropicProvider({ model: "claude-next", capabilities: { maxOutputTokens: 32_000 } }).capabilities.maxOutputTokens).toBe(32_000);
  });

  it("warns, not fails, that a request's responseFormat is not sent (the runtime validates the answer itself)", () => {
    const provider = createAnthropicProvider({ model: "claude-sonnet-4-6" });
    expect(provider.admit(ask("hi", { responseFormat: { type: "json", schema: { type: "object" } } }))).toEqual([
      "responseFormat was not sent: structured output is not available through this adapter",
    ]);
  });

  it("warns, not fails, when thinking makes temperature unsendable", () => {
    const provider = createAnthropicProvider({ model: "claude-sonnet-4-6" });
    expect(provider.admit(ask("hi", { temperature: 0.5, providerOptions: { anthropic: { thinkingBudgetTokens: 1024 } } }))).toEqual([
      "temperature cannot be set with extended thinking and was not sent",
    ]);
    let caught: unknown;
    try {
      createAnthropicProvider({ model: "claude-3-5-haiku-latest" }).admit(ask("hi", { providerOptions: { anthropic: { thinkingBudgetTokens: 1024 } } }));
    } catch (error) {
      caught = error;
    }
    expect(YokeError.hasCode(caught, "PROVIDER_ADMISSION_REJECTED")).toBe(true);
  });

  it("fails admission before any request for what the Messages API cannot represent", async () => {
    const { server, provider } = await open([]);
    const late = { messages: [...ask("hi").messages, { role: "system" as const, content: "new rules" }], tools: [] };
    const errors = await Promise.all([
      rejection(provider.generate(late)),
      rejection(provider.generate(ask("hi", { providerOptions: { anthropic: { thinkingBudgetTokens: 8000 } }, maxOutputTokens: 4000 }))),
      rejection(provider.generate(ask("hi", { providerOptions: { anthropic: { structuredOutput: { name: "x" } } } }))),
      rejection(provider.generate(ask("hi", { providerOptions: { anthropic: { thinkingBudget: 2000 } } }))),
      rejection(provider.generate(ask("hi", { maxOutputTokens: 100_000 }))),
    ]);
    expect(errors.map((error) => error.code)).toEqual(Array(5).fill("PROVIDER_ADMISSION_REJECTED"));
    expect(server.requests).toHaveLength(0);
  });
});
