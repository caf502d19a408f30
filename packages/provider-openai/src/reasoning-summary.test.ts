import { describe, expect, it } from "vitest";
import { ask, collect, fixture, replayPerTest, weatherTool } from "./__fixtures__/test-support.js";

const open = replayPerTest();

const parts2 = ["Check the notes first.", "Then write the summary."];
const reasoningPart = {
  type: "reasoning",
  text: parts2.join("\n\n"),
  summary: parts2,
  providerMetadata: { openai: { itemId: "rs_parts_01", encryptedContent: "gAAAAB-encrypted-reasoning-parts" } },
};

describe("multi-part reasoning summaries", () => {
  it("keep their parts apart in summary, text their join with blank lines, the same streamed or whole", async () => {
    const { provider } = await open([fixture("reasoning-summary-parts.sse")]);
    const { parts, onStreamPart } = collect();
    const streamed = await provider.generate(ask("Summarize the notes", { providerOptions: { openai: { reasoningSummary: "auto" } } }), { onStreamPart });
    expect(streamed.content).toEqual([reasoningPart, { type: "text", text: "Done." }]);
    // The deltas, with a blank line streamed where a new summary part begins, spell the part's text.
    expect(parts.flatMap((part) => (part.type === "reasoning-delta" ? [part.text] : [])).join("")).toBe(reasoningPart.text);

    const whole = await open([fixture("json-reasoning-summary-parts.json")], { stream: false });
    expect((await whole.provider.generate(ask("Summarize the notes"))).content).toEqual(streamed.content);
  });

  it("go back as separate summary_text parts, not one joined part", async () => {
    const { server, provider } = await open([fixture("reasoning-summary-parts.sse"), fixture("text.sse")]);
    const first = await provider.generate(ask("Summarize the notes"));
    await provider.generate({
      messages: [...ask("Summarize the notes").messages, { role: "assistant", content: first.content }, ...ask("Thanks").messages],
      tools: [],
    });
    expect((server.requests[1]!.body as { input: unknown[] }).input[1]).toEqual({
      type: "reasoning",
      id: "rs_parts_01",
      summary: parts2.map((text) => ({ type: "summary_text", text })),
      encrypted_content: "gAAAAB-encrypted-reasoning-parts",
    });
  });
});

describe("usage totals", () => {
  it("fill uncachedInputTokens and totalTokens on both APIs, streamed or whole", async () => {
    const { provider } = await open([fixture("reasoning-summary-parts.sse")]);
    expect((await provider.generate(ask("Summarize the notes"))).usage).toEqual({
      inputTokens: 90,
      outputTokens: 140,
      cacheReadTokens: 64,
      reasoningTokens: 128,
      uncachedInputTokens: 26,
      totalTokens: 230,
    });
    const whole = await open([fixture("json-parallel-tool-calls.json")], { stream: false });
    expect((await whole.provider.generate(ask("Weather?", { tools: [weatherTool] }))).usage).toMatchObject({ uncachedInputTokens: 40, totalTokens: 70 });
    const chat = await open([fixture("chat-parallel-tool-calls.sse")], { api: "chat", model: "gpt-4.1-mini" });
    expect((await chat.provider.generate(ask("Weather?", { tools: [weatherTool] }))).usage).toEqual({
      inputTokens: 40,
      outputTokens: 30,
      cacheReadTokens: 32,
      reasoningTokens: 0,
      uncachedInputTokens: 8,
      totalTokens: 70,
    });
    const chatWhole = await open([fixture("chat-json-refusal.json")], { api: "chat", model: "gpt-4.1-mini", stream: false });
    expect((await chatWhole.provider.generate(ask("hi"))).usage).toEqual({
      inputTokens: 15,
      outputTokens: 9,
      cacheReadTokens: 0,
      reasoningTokens: 0,
      uncachedInputTokens: 15,
      totalTokens: 24,
    });
  });
});
