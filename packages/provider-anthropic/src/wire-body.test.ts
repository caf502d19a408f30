import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "@yoke/protocol";
import { fixture, replay, weatherTool, type Replay } from "./__fixtures__/test-support.js";
import { anthropicWireBody } from "./wire-body.js";
import { createAnthropicProvider } from "./anthropic-provider.js";

let current: Replay | undefined;
afterEach(async () => {
  await current?.server.close();
  current = undefined;
});

/** A request with history, tools and settings: what a journal rebuilds for a later turn. */
const request: ModelRequest = {
  messages: [
    { role: "system", content: "Answer briefly." },
    { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
    {
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: "toolu_1", toolName: "get_weather", arguments: { city: "Paris" }, rawArguments: '{"city":"Paris"}' }],
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "toolu_1",
          toolName: "get_weather",
          result: { status: "ok", content: [{ type: "text", text: "18°C, clear" }], timing: { startedAt: 0, endedAt: 5, durationMs: 5 } },
        },
      ],
    },
  ],
  tools: [weatherTool],
  toolChoice: "auto",
  maxOutputTokens: 300,
  temperature: 0.2,
  stablePrefixMessages: 2,
};

describe("anthropicWireBody: the body the adapter sends, rebuilt without a call", () => {
  for (const stream of [true, false]) {
    it(`equals, byte for byte, the body the recorded server received (${stream ? "streaming" : "not streaming"})`, async () => {
      current = await replay([stream ? fixture("text.sse") : fixture("json-refusal-tool-call.json")], { stream });
      await current.provider.generate(request);
      expect(current.server.requests).toHaveLength(1);
      const body = anthropicWireBody(request, { model: current.provider.modelId, stream });
      expect(current.server.requests[0]!.rawBody).toBe(JSON.stringify(body));
    });
  }

  it("refuses what the adapter refuses: a reasoning effort (PROVIDER_ADMISSION_REJECTED, naming the thinking budget)", () => {
    const effort: ModelRequest = { ...request, reasoningEffort: "low" };
    expect(() => anthropicWireBody(effort, { model: "claude-sonnet-4-6" })).toThrowError(expect.objectContaining({ code: "PROVIDER_ADMISSION_REJECTED" }));
    const provider = createAnthropicProvider({ model: "claude-sonnet-4-6", apiKey: "sk-test" });
    expect(() => provider.admit(effort)).toThrowError(expect.objectContaining({ message: expect.stringContaining("thinkingBudgetTokens") }));
  });
});
