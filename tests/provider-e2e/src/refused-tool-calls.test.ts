// Issue 33, item 1, end to end: a response stopped for a refusal or a content filter after one
// whole tool call and during a second, through each adapter over its real SDK and the runtime.
// No tool may run; the run waits for a person; the journal keeps both calls as withheld; and
// when the person answers, neither call travels back to the provider.
import { fileURLToPath } from "node:url";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemoryJournal } from "@yoke/journal";
import type { ModelResponse, ProviderAdapterV1 } from "@yoke/protocol";
import { createAiSdkProvider } from "@yoke/provider-ai-sdk";
import { createAnthropicProvider } from "@yoke/provider-anthropic";
import { createOpenAIProvider } from "@yoke/provider-openai";
import { createHarness, defineTool } from "@yoke/runtime";
import { createReplayServer, readReplayFixture } from "@yoke/testkit/replay";

const fixturesOf = (packageDir: string): string => fileURLToPath(new URL(`../../../packages/${packageDir}/src/__fixtures__/`, import.meta.url));

interface RefusalCase {
  name: string;
  fixtures: string;
  path: string;
  refused: string;
  answer: string;
  stopReason: "refusal" | "content_filter";
  callIds: [string, string];
  createProvider(url: string): ProviderAdapterV1;
}

const cases: RefusalCase[] = [
  {
    name: "anthropic (stop_reason refusal)",
    fixtures: fixturesOf("provider-anthropic"),
    path: "/v1/messages",
    refused: "refusal-tool-call.sse",
    answer: "text.sse",
    stopReason: "refusal",
    callIds: ["toolu_paris", "toolu_tokyo"],
    createProvider: (url) => createAnthropicProvider({ model: "claude-sonnet-4-6", baseURL: url, apiKey: "sk-ant-test" }),
  },
  {
    name: "openai responses (incomplete:content_filter)",
    fixtures: fixturesOf("provider-openai"),
    path: "/v1/responses",
    refused: "content-filter-tool-call.sse",
    answer: "text.sse",
    stopReason: "content_filter",
    callIds: ["call_paris", "call_tokyo"],
    createProvider: (url) => createOpenAIProvider({ model: "gpt-5-mini", baseURL: `${url}/v1`, apiKey: "sk-test" }),
  },
  {
    name: "openai chat (finish_reason content_filter)",
    fixtures: fixturesOf("provider-openai"),
    path: "/v1/chat/completions",
    refused: "chat-content-filter-tool-call.sse",
    answer: "chat-text.sse",
    stopReason: "content_filter",
    callIds: ["call_paris", "call_tokyo"],
    createProvider: (url) => createOpenAIProvider({ model: "gpt-4.1-mini", api: "chat", baseURL: `${url}/v1`, apiKey: "sk-test" }),
  },
  {
    name: "ai-sdk over openai-compatible (finish_reason content_filter)",
    fixtures: fixturesOf("provider-ai-sdk"),
    path: "/v1/chat/completions",
    refused: "content-filter-tool-call.sse",
    answer: "text.sse",
    stopReason: "content_filter",
    callIds: ["call_bridge_paris", "call_bridge_tokyo"],
    createProvider: (url) =>
      createAiSdkProvider({
        model: createOpenAICompatible({ name: "local", baseURL: `${url}/v1`, apiKey: "sk-local", includeUsage: true }).chatModel("qwen3-8b-instruct"),
      }),
  },
];

describe.each(cases)("$name: a refusal with tool calls in the response", (test) => {
  it("runs no tool, waits for a person, journals the calls as withheld and never sends them back", async () => {
    const server = await createReplayServer([test.refused, test.answer].map((name) => readReplayFixture(test.fixtures, name, { path: test.path })));
    const lookups: string[] = [];
    const harness = createHarness({
      journal: createMemoryJournal(),
      provider: test.createProvider(server.url),
      tools: [
        defineTool({
          name: "get_weather",
          description: "Current weather for a city.",
          input: z.object({ city: z.string() }),
          sideEffect: "none",
          execute: async ({ city }) => {
            lookups.push(city);
            return "sunny";
          },
        }),
      ],
      tenantId: "tenant_refused_calls",
    });
    const waiting = await harness.start("Weather in Paris and Tokyo?");
    expect(lookups).toEqual([]);
    expect(waiting.outcome).toBeUndefined();
    expect(waiting.state.waiting?.kind).toBe(test.stopReason);

    const resumed = await harness.resume(waiting.runId, { input: "Only the weather, please." });
    await server.close();
    expect(resumed.outcome?.status).toBe("completed");
    expect(lookups).toEqual([]);
    expect(server.requests).toHaveLength(2);
    for (const id of test.callIds) expect(JSON.stringify(server.requests[1]!.body)).not.toContain(id);

    const responses: ModelResponse[] = [];
    for await (const event of harness.events(waiting.runId)) {
      if (event.type === "model.responded") responses.push(event.data.response);
      expect(event.type.startsWith("action.") || event.type.startsWith("tool.")).toBe(false);
    }
    expect(responses[0]!.stopReason).toBe(test.stopReason);
    expect(responses[0]!.content.flatMap((part) => (part.type === "tool-call-withheld" ? [part.toolCallId] : []))).toEqual(test.callIds);
    expect(responses[0]!.content.some((part) => part.type === "tool-call")).toBe(false);
  });
});
