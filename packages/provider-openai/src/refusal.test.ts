import { describe, expect, it } from "vitest";
import type { ModelRequest, ModelResponse } from "@yoke/protocol";
import { ask, collect, fixture, replayPerTest } from "./__fixtures__/test-support.js";

const open = replayPerTest();

const chat = { api: "chat" as const, model: "gpt-4.1-mini" };
const REFUSAL = "I'm sorry, I can't help with that.";
const summarySchema = { type: "object", properties: { summary: { type: "string" } }, required: ["summary"], additionalProperties: false };
// What a structured-output reader parses: the answer's text parts (OpenAI returns the JSON as text).
const outputText = (response: ModelResponse) => response.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");

describe("refusals on the Responses API", () => {
  it("streams a refusal as refusal-delta parts and maps it to a refusal part, streamed or whole", async () => {
    const { provider } = await open([fixture("refusal.sse")]);
    const { parts, onStreamPart } = collect();
    const streamed = await provider.generate(ask("Something harmful"), { onStreamPart });
    expect(parts.map((part) => part.type)).toEqual(["refusal-delta", "refusal-delta", "finish"]);
    expect(parts.flatMap((part) => (part.type === "refusal-delta" ? [part.text] : [])).join("")).toBe(REFUSAL);
    const expected = [{ type: "refusal", text: REFUSAL, providerMetadata: { openai: { itemId: "msg_refusal_01" } } }];
    expect(streamed.content).toEqual(expected);
    expect([streamed.stopReason, streamed.rawStopReason]).toEqual(["refusal", "completed"]);

    const whole = await open([fixture("json-refusal.json")], { stream: false });
    const response = await whole.provider.generate(ask("Something harmful"));
    expect(response.content).toEqual(expected);
    expect([response.stopReason, response.rawStopReason]).toEqual(["refusal", "completed"]);
  });

  it("sends a refusal back as an assistant output message with a refusal content item, or as text when it has no OpenAI message id", async () => {
    const { server, provider } = await open([fixture("text.sse")]);
    const history: ModelRequest = {
      messages: [
        ...ask("Something harmful").messages,
        { role: "assistant", content: [{ type: "refusal", text: REFUSAL, providerMetadata: { openai: { itemId: "msg_refusal_01" } } }] },
        ...ask("Then something else").messages,
        { role: "assistant", content: [{ type: "refusal", text: "Not that either." }] },
        ...ask("Fine, say hello").messages,
      ],
      tools: [],
    };
    await provider.generate(history);
    const input = (server.requests[0]!.body as { input: unknown[] }).input;
    expect(input[1]).toEqual({
      type: "message",
      role: "assistant",
      id: "msg_refusal_01",
      status: "completed",
      content: [{ type: "refusal", refusal: REFUSAL }],
    });
    expect(input[3]).toEqual({ role: "assistant", content: "Not that either." });
    expect(input).toHaveLength(5);
  });
});

describe("refusals on Chat Completions", () => {
  it("streams delta.refusal as refusal-delta parts and maps message.refusal to a refusal part, streamed or whole", async () => {
    const { provider } = await open([fixture("chat-refusal.sse")], chat);
    const { parts, onStreamPart } = collect();
    const streamed = await provider.generate(ask("Something harmful"), { onStreamPart });
    expect(parts.map((part) => part.type)).toEqual(["refusal-delta", "finish"]);
    expect(streamed.content).toEqual([{ type: "refusal", text: REFUSAL }]);
    expect([streamed.stopReason, streamed.rawStopReason]).toEqual(["refusal", "stop"]);

    const whole = await open([fixture("chat-json-refusal.json")], { ...chat, stream: false });
    const response = await whole.provider.generate(ask("Something harmful"));
    expect(response.content).toEqual([{ type: "refusal", text: REFUSAL }]);
    expect([response.stopReason, response.rawStopReason, response.requestId]).toEqual(["refusal", "stop", "req_chat_json_refusal"]);
  });

  it("sends a refusal back in the assistant message's refusal field and, content being required, as its one refusal content part", async () => {
    const { server, provider } = await open([fixture("chat-text.sse")], chat);
    await provider.generate({
      messages: [...ask("Something harmful").messages, { role: "assistant", content: [{ type: "refusal", text: REFUSAL }] }, ...ask("Say hello").messages],
      tools: [],
    });
    expect((server.requests[0]!.body as { messages: unknown[] }).messages[1]).toEqual({
      role: "assistant",
      content: [{ type: "refusal", refusal: REFUSAL }],
      refusal: REFUSAL,
    });
  });
});

describe("a refused structured-output request", () => {
  const cases = [
    { name: "Responses, streamed", file: "refusal.sse", options: {} },
    { name: "Responses, whole", file: "json-refusal.json", options: { stream: false } },
    { name: "Chat, streamed", file: "chat-refusal.sse", options: chat },
    { name: "Chat, whole", file: "chat-json-refusal.json", options: { ...chat, stream: false } },
  ];
  for (const { name, file, options } of cases) {
    it(`produces no output text to parse (${name}): the refusal is only a refusal part`, async () => {
      const { provider } = await open([fixture(file)], options);
      const { parts, onStreamPart } = collect();
      const response = await provider.generate(
        ask("Summarize something harmful", { providerOptions: { openai: { structuredOutput: { name: "summary", schema: summarySchema } } } }),
        {
          onStreamPart,
        },
      );
      expect(outputText(response)).toBe("");
      expect(parts.some((part) => part.type === "text-delta")).toBe(false);
      expect(response.content.map((part) => part.type)).toEqual(["refusal"]);
      expect(response.stopReason).toBe("refusal");
    });
  }
});
