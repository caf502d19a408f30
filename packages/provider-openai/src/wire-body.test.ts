import { afterEach, describe, expect, it } from "vitest";
import type { ModelRequest } from "@yoke/protocol";
import { fixture, replay, weatherTool, type Replay } from "./__fixtures__/test-support.js";
import { openAIWireBody } from "./wire-body.js";
import { createOpenAIProvider } from "./openai-provider.js";

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
      content: [{ type: "tool-call", toolCallId: "call_1", toolName: "get_weather", arguments: { city: "Paris" }, rawArguments: '{"city":"Paris"}' }],
    },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "call_1",
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
  providerOptions: { openai: { promptCacheKey: "weather" } },
};

describe("openAIWireBody: the body the adapter sends, rebuilt without a call", () => {
  for (const api of ["responses", "chat"] as const) {
    it(`equals, byte for byte, the body the recorded server received (${api} API, streaming)`, async () => {
      current = await replay([fixture(api === "chat" ? "chat-text.sse" : "text.sse")], { model: "gpt-4.1-mini", api });
      await current.provider.generate(request);
      expect(current.server.requests).toHaveLength(1);
      const body = openAIWireBody(request, { model: "gpt-4.1-mini", api });
      expect(current.server.requests[0]!.rawBody).toBe(JSON.stringify(body));
    });
  }

  it("sends a request's reasoning effort to a reasoning model (the recorded body has it), and the rebuilt body matches", async () => {
    const reasoning: ModelRequest = { ...request, temperature: undefined, reasoningEffort: "low" } as ModelRequest;
    delete (reasoning as { temperature?: number }).temperature;
    current = await replay([fixture("text.sse")], { model: "gpt-5-mini" });
    await current.provider.generate(reasoning);
    const received = current.server.requests[0]!;
    expect(received.body).toMatchObject({ reasoning: { effort: "low" } });
    expect(received.rawBody).toBe(JSON.stringify(openAIWireBody(reasoning, { model: "gpt-5-mini" })));
  });

  it("refuses what the adapter refuses: a reasoning effort for a model without one (PROVIDER_ADMISSION_REJECTED)", () => {
    const effort: ModelRequest = { ...request, reasoningEffort: "high" };
    expect(() => openAIWireBody(effort, { model: "gpt-4.1-mini" })).toThrowError(expect.objectContaining({ code: "PROVIDER_ADMISSION_REJECTED" }));
    const provider = createOpenAIProvider({ model: "gpt-4.1-mini", apiKey: "sk-test" });
    expect(() => provider.admit(effort)).toThrowError(
      expect.objectContaining({ code: "PROVIDER_ADMISSION_REJECTED", message: expect.stringContaining("no reasoning effort") }),
    );
  });
});
