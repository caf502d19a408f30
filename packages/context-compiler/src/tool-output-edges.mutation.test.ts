// Tool output at its byte budget, exactly and one byte over, inline and stored out of line:
// the edges where `<=` and `<` in render.ts's planTruncations give different requests. Each
// test here was written against a hand-applied mutant (named in it) that the other tests let
// through (issue 17).
import type { Message, ModelRequest, ToolResultEnvelope } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { CONFIG } from "./__fixtures__/runs.js";
import { compile, estimatedTokenCounter, type CompileConfig, type ManifestItem, type SourceMessage } from "./index.js";

const BUDGET = 2_000;
const FAST: CompileConfig = { ...CONFIG, tokenCounter: estimatedTokenCounter(), toolOutputBudgets: { read_file: BUDGET } };
const TIMING = { startedAt: 0, endedAt: 1, durationMs: 1 };

function compiled(result: ToolResultEnvelope): { item: ManifestItem; shown: ToolResultEnvelope } {
  const assistant: Message = {
    role: "assistant",
    content: [{ type: "tool-call", toolCallId: "call_edge", toolName: "read_file", rawArguments: '{"path":"a.txt"}', arguments: { path: "a.txt" } }],
  };
  const tool: Message = { role: "tool", content: [{ type: "tool-result", toolCallId: "call_edge", toolName: "read_file", result }] };
  const transcript: SourceMessage[] = [
    { id: "event:3", message: assistant },
    { id: "event:5", message: tool },
  ];
  const { request, manifest } = compile({ revision: 6, task: "Read a.txt.", tools: [], transcript }, FAST);
  const item = manifest.items.find((entry) => entry.id === "event:5")!;
  const message = request.messages[item.message!]! as Extract<ModelRequest["messages"][number], { role: "tool" }>;
  return { item, shown: message.content[0]!.result };
}

const inline = (text: string): ToolResultEnvelope => ({ status: "ok", content: [{ type: "text", text }], timing: TIMING });

const stored = (text: string, originalBytes: number): ToolResultEnvelope => ({
  ...inline(text),
  truncation: {
    originalBytes,
    keptBytes: Buffer.byteLength(text),
    artifact: { digest: `sha256:${"ab".repeat(32)}`, bytes: originalBytes, mediaType: "text/plain; charset=utf-8" },
  },
});

describe("tool output at its byte budget", () => {
  // Mutant render.ts:66 `originalBytes <= budget` as `<`: output of exactly the budget was cut (to itself) with a note.
  it("keeps output of exactly the budget whole, and cuts output one byte over it", () => {
    for (const [label, text] of [
      ["ascii", "a".repeat(BUDGET)],
      ["two-byte", "é".repeat(BUDGET / 2)],
    ] as const) {
      expect(Buffer.byteLength(text), label).toBe(BUDGET);
      const exact = compiled(inline(text));
      expect(exact.item.decision, label).toBe("included");
      expect(exact.item.truncations, label).toBeUndefined();
      expect(exact.shown.truncation, label).toBeUndefined();
      expect(exact.shown.content[0]!.text, label).toContain(`\n${text}\n`);
      expect(exact.shown.content[0]!.text, label).not.toContain("output truncated");

      const over = compiled(inline(`${text}b`));
      expect(over.item.decision, label).toBe("truncated");
      expect(over.item.truncations, label).toEqual([expect.objectContaining({ part: 0, originalBytes: BUDGET + 1, keptBytes: BUDGET })]);
      expect(over.shown.content[0]!.text, label).toContain(`\n${text}\n`);
      expect(over.shown.content[0]!.text, label).toContain(`kept ${BUDGET} of ${BUDGET + 1} bytes`);
    }
  });

  // Mutant render.ts:59 `inlineBytes <= budget` as `<`: a result whose only out-of-line part is its
  // structured output, with inline text of exactly the budget, was marked as cut.
  it("does not cut a stored-out-of-line result whose inline text is all of it and exactly the budget", () => {
    const text = "c".repeat(BUDGET);
    const whole = compiled(stored(text, BUDGET));
    expect(whole.item.decision).toBe("included");
    expect(whole.item.truncations).toBeUndefined();
    expect(whole.shown.content[0]!.text).not.toContain("output truncated");
    // One byte more stored than shown: the note says it is not all, and keeps the inline text whole.
    const part = compiled(stored(text, BUDGET + 1));
    expect(part.item.truncations).toEqual([{ part: 0, originalBytes: BUDGET + 1, keptBytes: BUDGET, artifactHash: "ab".repeat(32) }]);
    expect(part.shown.content[0]!.text).toContain(`\n${text}\n`);
    // Stryker's render.ts:59 `inlineBytes <= budget` as `true`: inline text over the budget, all
    // of the output (only structured output went out of line), was shown whole.
    const over = compiled(stored(`${text}c`, BUDGET + 1));
    expect(over.item.truncations).toEqual([{ part: 0, originalBytes: BUDGET + 1, keptBytes: BUDGET, artifactHash: "ab".repeat(32) }]);
    expect(over.shown.content[0]!.text).toContain(`\n${text}\n`);
    expect(over.shown.content[0]!.text).not.toContain(`${text}c`);
  });

  // Mutant render.ts:84 (`entry.part === index` as `true`): every result of a message took the first cut's note.
  it("cuts only the result over its budget among several in one message", () => {
    const small = "d".repeat(10);
    const big = "e".repeat(BUDGET + 500);
    const tool: Message = {
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: "call_a", toolName: "read_file", result: inline(small) },
        { type: "tool-result", toolCallId: "call_b", toolName: "read_file", result: inline(big) },
      ],
    };
    const assistant: Message = {
      role: "assistant",
      content: ["call_a", "call_b"].map((toolCallId) => ({ type: "tool-call" as const, toolCallId, toolName: "read_file", rawArguments: "{}", arguments: {} })),
    };
    const transcript: SourceMessage[] = [
      { id: "event:3", message: assistant },
      { id: "event:5", message: tool },
    ];
    const { request, manifest } = compile({ revision: 6, task: "Read both.", tools: [], transcript }, FAST);
    const item = manifest.items.find((entry) => entry.id === "event:5")!;
    expect(item.truncations).toEqual([expect.objectContaining({ part: 1, originalBytes: BUDGET + 500, keptBytes: BUDGET })]);
    const shown = request.messages[item.message!]! as Extract<ModelRequest["messages"][number], { role: "tool" }>;
    const [first, second] = shown.content.map((part) => part.result);
    expect(first!.content[0]!.text).not.toContain("output truncated");
    expect(first!.truncation).toBeUndefined();
    expect(second!.content[0]!.text).toContain(`kept ${BUDGET} of ${BUDGET + 500} bytes`);
  });
});
