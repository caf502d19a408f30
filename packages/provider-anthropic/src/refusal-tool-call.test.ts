// Issue 33: a refusal never runs a tool. A message stopped by `refusal` after one whole
// tool_use block and during a second has no executable part: both calls come back withheld.
import { afterEach, describe, expect, it } from "vitest";
import { toolCallsOf } from "@yoke/protocol";
import { ask, collect, fixture, replay, weatherTool, type Replay } from "./__fixtures__/test-support.js";

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

describe("a refusal with tool calls in the message", () => {
  for (const seed of [undefined, 1, 2, 3]) {
    it(`streamed (split seed ${seed ?? "none"}): the whole call and the one in flight are withheld, none executable`, async () => {
      const { provider } = await open([fixture("refusal-tool-call.sse")], {}, seed === undefined ? {} : { seed });
      const { parts, onStreamPart } = collect();
      const response = await provider.generate(ask("Weather in Paris and Tokyo?", { tools: [weatherTool] }), { onStreamPart });
      expect(response.stopReason).toBe("refusal");
      expect(toolCallsOf(response)).toEqual([]);
      expect(response.content).toEqual([
        { type: "tool-call-withheld", toolCallId: "toolu_paris", toolName: "get_weather", rawArguments: '{"city":"Paris"}' },
        { type: "tool-call-withheld", toolCallId: "toolu_tokyo", toolName: "get_weather", rawArguments: '{"city":"To' },
      ]);
      expect(parts.at(-1)).toEqual({ type: "finish", response });
    });
  }

  it("whole (stream: false): every tool_use block of a refused message is withheld", async () => {
    const { provider } = await open([fixture("json-refusal-tool-call.json")], { stream: false });
    const response = await provider.generate(ask("Weather in Paris and Tokyo?", { tools: [weatherTool] }));
    expect(response.stopReason).toBe("refusal");
    expect(response.content).toEqual([
      { type: "tool-call-withheld", toolCallId: "toolu_paris", toolName: "get_weather", rawArguments: '{"city":"Paris"}' },
      { type: "tool-call-withheld", toolCallId: "toolu_tokyo", toolName: "get_weather", rawArguments: "" },
    ]);
  });

  it("is never sent back as a tool_use block", async () => {
    const { server, provider } = await open([fixture("text-utf8.sse")]);
    await provider.generate({
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather in Paris?" }] },
        { role: "assistant", content: [{ type: "tool-call-withheld", toolCallId: "toolu_paris", toolName: "get_weather", rawArguments: '{"city":"Paris"}' }] },
        { role: "user", content: [{ type: "text", text: "It is for my own trip." }] },
      ],
      tools: [weatherTool],
    });
    expect(JSON.stringify(server.requests[0]!.body)).not.toContain("toolu_paris");
  });
});
