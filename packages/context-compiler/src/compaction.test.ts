import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, type Message } from "@yoke/protocol";
import { compactContext } from "./compact-context.js";
import type { ContextRevision } from "./compaction-types.js";
import { compile, createContextCompiler } from "./compiler.js";
import { CONFIG, TOOLS, inputAt, makeTranscript } from "./__fixtures__/runs.js";
import type { CompileConfig, ContextInput, SourceMessage } from "./input.js";
import { estimatedTokenCounter } from "./tokenizer.js";

const SMALL: CompileConfig = {
  ...CONFIG,
  contextWindow: 3_000,
  maxOutputTokens: 500,
  tokenCounter: estimatedTokenCounter(),
  compaction: { threshold: 0.6, keepRecentMessages: 4 },
};

/** A turn: an assistant message with 0–3 tool calls (and then their results), or a user message. */
const turnArbitrary = fc.oneof(
  fc.record({ kind: fc.constant("calls" as const), calls: fc.integer({ min: 0, max: 3 }), size: fc.integer({ min: 10, max: 600 }) }),
  fc.record({ kind: fc.constant("user" as const), calls: fc.constant(0), size: fc.integer({ min: 10, max: 300 }) }),
);

function transcriptOf(turns: readonly { kind: "calls" | "user"; calls: number; size: number }[]): SourceMessage[] {
  const out: SourceMessage[] = [];
  turns.forEach((turn, index) => {
    if (turn.kind === "user") {
      out.push({ id: `e${out.length}`, message: { role: "user", content: [{ type: "text", text: "u".repeat(turn.size) }] } });
      return;
    }
    const calls = Array.from({ length: turn.calls }, (_, call) => ({
      type: "tool-call" as const,
      toolCallId: `c${index}_${call}`,
      toolName: "read_file",
      rawArguments: "{}",
    }));
    out.push({ id: `e${out.length}`, message: { role: "assistant", content: [{ type: "text", text: "a".repeat(turn.size) }, ...calls] } });
    if (calls.length > 0) {
      const message: Message = {
        role: "tool",
        content: calls.map((call) => ({
          type: "tool-result",
          toolCallId: call.toolCallId,
          toolName: "read_file",
          result: { status: "ok", content: [{ type: "text", text: "r".repeat(turn.size) }], timing: { startedAt: 0, endedAt: 0, durationMs: 0 } },
        })),
      };
      out.push({ id: `e${out.length}`, message });
    }
  });
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}

describe("compaction", () => {
  it("never separates a tool call from its result, never touches the open pair, never rewrites its input", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(turnArbitrary, { minLength: 1, maxLength: 30 }), fc.integer({ min: 0, max: 6 }), async (turns, keepRecentMessages) => {
        const transcript = transcriptOf(turns);
        const input = deepFreeze<ContextInput>({ revision: transcript.length, task: "t", tools: TOOLS, transcript });
        const before = canonicalJson(input);
        const config = { ...SMALL, compaction: { threshold: 0.3, keepRecentMessages } };
        const revision = await compactContext(input, config, { force: true });
        expect(canonicalJson(input)).toBe(before);
        if (revision === undefined) return;
        const replaced = new Set(revision.replaces);
        const lastAssistant = transcript.findLastIndex((entry) => entry.message.role === "assistant");
        transcript.forEach((entry, index) => {
          if (entry.message.role === "tool") expect(replaced.has(entry.id)).toBe(replaced.has(transcript[index - 1]!.id));
          if (index >= lastAssistant && lastAssistant >= 0) expect(replaced.has(entry.id)).toBe(false);
          if (index >= transcript.length - keepRecentMessages) expect(replaced.has(entry.id)).toBe(false);
        });
        // The replaced items are the oldest, contiguous.
        expect(revision.replaces).toEqual(transcript.slice(0, revision.replaces.length).map((entry) => entry.id));
      }),
      { numRuns: 200 },
    );
  });

  it("makes a new context revision with lineage; the compiled manifest shows the summary and what it replaced", async () => {
    const transcript = makeTranscript(30);
    const input = inputAt(transcript, 30);
    const first = await compactContext(input, SMALL);
    expect(first).toMatchObject({ revision: 1, parent: 0, summarizer: "extractive", trust: "tool_output" });
    const second = await compactContext({ ...input, compactions: [first!] }, { ...SMALL, compaction: { threshold: 0.3, keepRecentMessages: 4 } });
    expect(second).toMatchObject({ revision: 2, parent: 1 });
    expect(second!.replaces[0]).toBe("summary:1");
    const { manifest, request } = compile({ ...input, compactions: [first!, second!] }, SMALL);
    expect(manifest.contextRevision).toBe(2);
    const summary = manifest.items.find((item) => item.kind === "summary")!;
    expect(summary).toMatchObject({ id: "summary:2", replaces: second!.replaces, message: 2 });
    expect(manifest.items.filter((item) => item.kind === "summary")).toHaveLength(1);
    const compacted = manifest.items.filter((item) => item.decision === "compacted");
    expect(compacted.every((item) => item.reason === "summary:2")).toBe(true);
    expect(compacted.length).toBe(first!.replaces.length + second!.replaces.length - 1);
    expect(request.messages[2]!.role).toBe("user");
    expect(request.messages[3]!.role).toBe("assistant");
  });

  it("compacts inline with the extractive summarizer when the transcript does not fit, and says so", () => {
    const transcript = makeTranscript(60);
    const result = compile(inputAt(transcript, 60), SMALL);
    expect(result.compactions[0]).toMatchObject({ revision: 1, parent: 0, summarizer: "extractive" });
    expect(result.manifest.allocation.free).toBeGreaterThanOrEqual(0);
    expect(result.manifest.items.find((item) => item.id === "constraint:no-push")?.decision).toBe("included");
  });

  it("uses an injected model summarizer, and leaves the overflow to the caller rather than calling it inside compile", async () => {
    const transcript = makeTranscript(60);
    const requests: number[] = [];
    const summarize = async ({ items }: { items: readonly unknown[] }) => {
      requests.push(items.length);
      return "the model's summary";
    };
    const config = { ...SMALL, compaction: { threshold: 0.6, summarize } };
    expect(() => compile(inputAt(transcript, 60), config)).toThrow(expect.objectContaining({ details: expect.objectContaining({ compactionRequired: true }) }));
    const revision = await compactContext(inputAt(transcript, 60), config);
    expect(revision).toMatchObject({ summarizer: "model", summary: "the model's summary" });
    expect(requests).toHaveLength(1);
    const { manifest } = compile(inputAt(transcript, 60, { compactions: [revision!] }), config);
    expect(manifest.contextRevision).toBe(1);
  });

  it("gives a long-lived compiler the same results as fresh compiles across inline compactions", () => {
    const transcript = makeTranscript(90);
    const compiler = createContextCompiler(SMALL);
    const compactions: ContextRevision[] = [];
    for (let turn = 0; turn <= 90; turn++) {
      const input = inputAt(transcript, turn, { compactions: compactions.slice() });
      const incremental = compiler.compile(input);
      const fresh = compile(input, SMALL);
      expect(incremental.bytes).toBe(fresh.bytes);
      expect(incremental.manifest).toEqual(fresh.manifest);
      compactions.push(...incremental.compactions);
    }
    expect(compactions.length).toBeGreaterThan(1);
  });

  it("flags compaction as due above the threshold", () => {
    expect(compile(inputAt(makeTranscript(2), 2), SMALL).compactionDue).toBe(false);
    expect(compile(inputAt(makeTranscript(20), 20), { ...SMALL, compaction: { threshold: 0.1 } }).compactionDue).toBe(true);
  });
});
