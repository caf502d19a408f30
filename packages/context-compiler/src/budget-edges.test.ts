// The budget edges: each test sits exactly on a limit, where a mistake of one framing, one
// reserve or one byte-per-character changes the decision. Through the public entry only, so
// the compiler's internals can move without these changing.
import type { Message, ModelRequest } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { CONFIG, inputAt, makeTranscript } from "./__fixtures__/runs.js";
import { compile, estimatedTokenCounter, isContextOverflow, type CompileConfig, type EvidenceItem, type SourceMessage } from "./index.js";

const FAST: CompileConfig = { ...CONFIG, tokenCounter: estimatedTokenCounter() };
const WIDE: CompileConfig = { ...FAST, contextWindow: 1_000_000, maxOutputTokens: 1_000 };

function overflowOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("budget edges", () => {
  const transcript = makeTranscript(12);

  it("charges the evidence message's framing to the budget: an item that fits only without it is omitted", () => {
    const item: EvidenceItem = { id: "doc:edge", kind: "evidence", text: "The release checklist lives in docs/release.md. ".repeat(40), priority: 5 };
    const bare = compile(inputAt(transcript, 12), WIDE).manifest.allocation;
    const withEvidence = compile(inputAt(transcript, 12, { evidence: [item] }), WIDE).manifest;
    const tokens = withEvidence.items.find((entry) => entry.id === "doc:edge")!.tokens;
    const framing = withEvidence.allocation.overhead - bare.overhead;
    expect(framing).toBeGreaterThan(0);
    expect(tokens).toBeGreaterThan(framing);
    const decision = (free: number) => {
      const config = { ...WIDE, contextWindow: bare.used + free + WIDE.maxOutputTokens };
      const { manifest } = compile(inputAt(transcript, 12, { evidence: [item] }), config);
      expect(manifest.allocation.free).toBeGreaterThanOrEqual(0);
      return manifest.items.find((entry) => entry.id === "doc:edge")!.decision;
    };
    expect(decision(tokens + framing)).toBe("included");
    expect(decision(tokens + framing - 1)).toBe("omitted");
    expect(decision(tokens)).toBe("omitted");
  });

  it("charges the framing once and then each item in full: the second item fits only in what the first left", () => {
    const first: EvidenceItem = { id: "doc:first", kind: "evidence", text: "Deploys need a green main and a signed tag. ".repeat(30), priority: 9 };
    const second: EvidenceItem = { id: "doc:second", kind: "evidence", text: "Rollbacks are one command: pnpm rollback. ".repeat(20), priority: 1 };
    const bare = compile(inputAt(transcript, 12), WIDE).manifest.allocation;
    const both = compile(inputAt(transcript, 12, { evidence: [first, second] }), WIDE).manifest;
    const tokens = (id: string) => both.items.find((entry) => entry.id === id)!.tokens;
    const framing = both.allocation.overhead - bare.overhead;
    const decisions = (free: number) => {
      const config = { ...WIDE, contextWindow: bare.used + free + WIDE.maxOutputTokens };
      const { manifest } = compile(inputAt(transcript, 12, { evidence: [first, second] }), config);
      expect(manifest.allocation.free).toBeGreaterThanOrEqual(0);
      return ["doc:first", "doc:second"].map((id) => manifest.items.find((entry) => entry.id === id)!.decision);
    };
    const exact = tokens("doc:first") + framing + tokens("doc:second");
    expect(decisions(exact)).toEqual(["included", "included"]);
    expect(decisions(exact - 1)).toEqual(["included", "omitted"]);
  });

  it("keeps the output reserve when the transcript overflows: over the window minus the reserve is an overflow", () => {
    const { used, mandatory } = compile(inputAt(transcript, 12), WIDE).manifest.allocation;
    // A reserve that leaves room for the mandatory state anywhere in the band, so only the transcript overflows.
    const reserve = Math.floor((used - mandatory) / 2);
    expect(reserve).toBeGreaterThan(100);
    const at = (contextWindow: number) => () => compile(inputAt(transcript, 12), { ...FAST, contextWindow, maxOutputTokens: reserve });
    // Exactly fits the window minus the reserve.
    expect(at(used + reserve)().manifest.allocation.free).toBe(0);
    // The band (window - reserve, window]: the transcript fits the window, not the window minus the reserve.
    for (const contextWindow of [used + reserve - 1, used + Math.floor(reserve / 2), used + 1, used]) {
      const caught = overflowOf(at(contextWindow));
      expect(isContextOverflow(caught), `window ${contextWindow}`).toBe(true);
      expect(caught).toMatchObject({ code: "CONTEXT_OVERFLOW", details: { what: "transcript", required: used, available: contextWindow - reserve } });
    }
  });

  it("cuts multi-byte tool output to its budget in UTF-8 bytes, not in characters", () => {
    const budget = 2_000;
    const cases: Array<[string, string]> = [
      ["two-byte", "é".repeat(1_500)], // 1,500 characters, 3,000 bytes
      ["three-byte", "€".repeat(800)], // 800 characters, 2,400 bytes
      ["four-byte", "🍎".repeat(600)], // 1,200 UTF-16 units, 2,400 bytes
      ["mixed", "ascii and ü and 漢字 ".repeat(90)],
    ];
    for (const [label, text] of cases) {
      expect(text.length, label).toBeLessThan(budget);
      expect(Buffer.byteLength(text, "utf8"), label).toBeGreaterThan(budget);
      const tool: Message = {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "call_utf8",
            toolName: "read_file",
            result: { status: "ok", content: [{ type: "text", text }], timing: { startedAt: 0, endedAt: 1, durationMs: 1 } },
          },
        ],
      };
      const assistant: Message = {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "call_utf8", toolName: "read_file", rawArguments: '{"path":"i18n.txt"}', arguments: { path: "i18n.txt" } }],
      };
      const run: SourceMessage[] = [
        { id: "event:3", message: assistant },
        { id: "event:5", message: tool },
      ];
      const { request, manifest, artifacts } = compile(inputAt(run, 1), { ...FAST, toolOutputBudgets: { read_file: budget } });
      const item = manifest.items.find((entry) => entry.id === "event:5")!;
      expect(item.decision, label).toBe("truncated");
      const cut = item.truncations![0]!;
      expect(cut.originalBytes, label).toBe(Buffer.byteLength(text, "utf8"));
      expect(cut.keptBytes, label).toBeLessThanOrEqual(budget);
      expect(artifacts.find((artifact) => artifact.hash === cut.artifactHash)?.text, label).toBe(text);
      const message = request.messages[item.message!]! as Extract<ModelRequest["messages"][number], { role: "tool" }>;
      const kept = message.content[0]!.result.content[0]!.text;
      expect(kept, label).not.toContain(text);
      expect(kept, label).not.toContain("\uFFFD");
    }
  });
});
