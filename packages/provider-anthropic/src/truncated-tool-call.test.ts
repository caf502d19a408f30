import { afterEach, describe, expect, it } from "vitest";
import { toolCallsOf, type ModelRequest, type ToolSpec } from "@yoke/protocol";
import { ask, collect, fixture, replay, type Replay } from "./__fixtures__/test-support.js";

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

const writeFile: ToolSpec = {
  name: "write_file",
  description: "Write a file.",
  inputSchema: {
    type: "object",
    properties: { path: { type: "string" }, content: { type: "string" } },
    required: ["path", "content"],
    additionalProperties: false,
  },
};
const ok = (text: string) => ({ status: "ok" as const, content: [{ type: "text" as const, text }], timing: { startedAt: 0, endedAt: 1, durationMs: 1 } });

const FIRST = {
  type: "tool-call",
  toolCallId: "toolu_first",
  toolName: "write_file",
  rawArguments: '{"path": "a.txt", "content": "A"}',
  arguments: { path: "a.txt", content: "A" },
};
const CUT = { type: "tool-call-truncated", toolCallId: "toolu_cut", toolName: "write_file", rawArguments: '{"path": "b.txt", "content": "The quick brown' };

describe("a tool call cut by max_tokens", () => {
  const streams = ["max-tokens-tool-call.sse", "max-tokens-tool-call-unclosed.sse"].flatMap((file) => [undefined, 1, 2, 3].map((seed) => ({ file, seed })));
  for (const { file, seed } of streams) {
    it(`streamed (${file}, split seed ${seed ?? "none"}): the cut block is tool-call-truncated, never a call; the whole one before it stays a call`, async () => {
      const { provider } = await open([fixture(file)], {}, seed === undefined ? {} : { seed });
      const { parts, onStreamPart } = collect();
      const response = await provider.generate(ask("Write a.txt and b.txt", { tools: [writeFile] }), { onStreamPart });
      expect(response.stopReason).toBe("max_tokens");
      expect(response.content).toEqual([{ type: "text", text: "Writing both files." }, FIRST, CUT]);
      expect(toolCallsOf(response).map((call) => call.toolCallId)).toEqual(["toolu_first"]);
      // The cut call ends with tool-call-truncated, not tool-call-end.
      expect(parts.flatMap((part) => (part.type === "tool-call-end" || part.type === "tool-call-truncated" ? [[part.type, part.toolCallId]] : []))).toEqual([
        ["tool-call-end", "toolu_first"],
        ["tool-call-truncated", "toolu_cut"],
      ]);
      expect(parts.at(-1)?.type).toBe("finish");
    });
  }

  it("whole (stream: false): the last tool_use block of a max_tokens message is cut, the ones before it are calls", async () => {
    const { provider } = await open([fixture("json-max-tokens-tool-call.json")], { stream: false });
    const response = await provider.generate(ask("Write a.txt and b.txt", { tools: [writeFile] }));
    expect(response.content).toEqual([
      {
        type: "tool-call",
        toolCallId: "toolu_first",
        toolName: "write_file",
        rawArguments: '{"path":"a.txt","content":"A"}',
        arguments: { path: "a.txt", content: "A" },
      },
      { type: "tool-call-truncated", toolCallId: "toolu_cut", toolName: "write_file", rawArguments: '{"path":"b.txt"}' },
    ]);
  });

  it("a malformed call under another stop reason stays a call with argumentsError", async () => {
    const { provider } = await open([fixture("malformed-arguments.sse")]);
    const { parts, onStreamPart } = collect();
    const response = await provider.generate(ask("Weather?", { tools: [writeFile] }), { onStreamPart });
    expect(response.content[0]).toMatchObject({ type: "tool-call", toolCallId: "toolu_bad" });
    expect(parts.map((part) => part.type)).toContain("tool-call-end");
  });

  it("is never sent back: not as a tool_use block, and the message left empty is not sent", async () => {
    const { server, provider } = await open([
      fixture("max-tokens-tool-call.sse"),
      fixture("text.sse"),
      fixture("e2e-truncated-turn-1.sse"),
      fixture("text.sse"),
    ]);
    const request = ask("Write a.txt and b.txt", { tools: [writeFile] });
    const first = await provider.generate(request);
    const next: ModelRequest = {
      ...request,
      messages: [
        ...request.messages,
        { role: "assistant", content: first.content },
        { role: "tool", content: [{ type: "tool-result", toolCallId: "toolu_first", toolName: "write_file", result: ok("written") }] },
        ...ask("Your call to write_file was cut by the output limit; call it again.").messages,
      ],
    };
    await provider.generate(next);
    expect((server.requests[1]!.body as { messages: unknown }).messages).toEqual([
      { role: "user", content: [{ type: "text", text: "Write a.txt and b.txt" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Writing both files." },
          { type: "tool_use", id: "toolu_first", name: "write_file", input: { path: "a.txt", content: "A" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_first", content: "written" },
          { type: "text", text: "Your call to write_file was cut by the output limit; call it again." },
        ],
      },
    ]);

    // An assistant turn that was nothing but a cut call leaves no assistant message behind.
    const cut = await provider.generate(ask("Save a note", { tools: [writeFile] }));
    const onlyCut = cut.content.filter((part) => part.type === "tool-call-truncated");
    await provider.generate({
      ...request,
      messages: [...ask("Save a note").messages, { role: "assistant", content: onlyCut }, ...ask("Call it again.").messages],
    });
    expect((server.requests[3]!.body as { messages: unknown }).messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Save a note" },
          { type: "text", text: "Call it again." },
        ],
      },
    ]);
  });
});
