// compiler.ts at its edges: the config's limits exactly, every request option reaching the
// request, mandatory state and the transcript exactly filling the window, and what an inline
// compaction leaves. Each test was written against hand-applied mutants (named in it) that
// the other tests let through (issue 17).
import { YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { CONFIG, inputAt, makeTranscript } from "./__fixtures__/runs.js";
import { sha256Hex } from "./artifacts.js";
import {
  compactContext,
  compile,
  createContextCompiler,
  estimatedTokenCounter,
  type CompileConfig,
  type ContextRevision,
  type SourceMessage,
} from "./index.js";

const FAST: CompileConfig = { ...CONFIG, tokenCounter: estimatedTokenCounter() };

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("the config's limits", () => {
  // Mutants: compiler.ts:72 `>=` as `>`; :66 `value > 0` as `>= 0`; :74 `threshold > 0` as `>= 0`, `threshold <= 1` as `< 1`.
  it("rejects a reserve of the whole window, a zero budget and a zero threshold; accepts a threshold of 1", () => {
    const invalid = (config: CompileConfig) =>
      expect(
        YokeError.hasCode(
          thrown(() => createContextCompiler(config)),
          "CONFIG_INVALID",
        ),
      ).toBe(true);
    invalid({ ...FAST, contextWindow: 8_000, maxOutputTokens: 8_000 });
    expect(() => createContextCompiler({ ...FAST, contextWindow: 8_000, maxOutputTokens: 7_999 })).not.toThrow();
    invalid({ ...FAST, maxOutputTokens: 0 });
    invalid({ ...FAST, toolOutputBudgetBytes: 0 });
    invalid({ ...FAST, compaction: { threshold: 0 } });
    expect(() => createContextCompiler({ ...FAST, compaction: { threshold: 1 } })).not.toThrow();
    invalid({ ...FAST, compaction: { threshold: 1.01 } });
  });
});

describe("the request header", () => {
  // Mutants: render.ts:229-234, each option left out of the header.
  it("carries every request option of the config, in the request and in its bytes", () => {
    const options = {
      toolChoice: "required",
      temperature: 0.25,
      stopSequences: ["<END>"],
      serverTools: [{ provider: "anthropic", type: "web_search_20250305", name: "web_search", options: { max_uses: 3 } }],
      providerOptions: { openai: { parallelToolCalls: false } },
      responseFormat: { type: "json", name: "answer", schema: { type: "object", properties: { ok: { type: "boolean" } } } },
    } as const satisfies Partial<CompileConfig>;
    const { request, bytes, manifest } = compile(inputAt(makeTranscript(1), 1), { ...FAST, ...options });
    expect(request).toMatchObject(options);
    const header = JSON.parse(bytes.slice(0, bytes.indexOf("\n"))) as Record<string, unknown>;
    expect(header).toMatchObject(options);
    expect(manifest.header).toMatchObject(options);
  });
});

describe("fitting the window exactly", () => {
  const transcript = makeTranscript(12);

  // Mutant compiler.ts:231 `layout.mandatory > available` as `>=`.
  it("accepts mandatory state that fills the window less the reserve exactly, and overflows one token below", () => {
    // No transcript: everything is mandatory.
    const { mandatory, used } = compile(inputAt(transcript, 0), FAST).manifest.allocation;
    expect(used).toBe(mandatory);
    const at = (contextWindow: number) => compile(inputAt(transcript, 0), { ...FAST, contextWindow, maxOutputTokens: 1_000 });
    expect(at(mandatory + 1_000).manifest.allocation.free).toBe(0);
    expect(thrown(() => at(mandatory + 999))).toMatchObject({ code: "CONTEXT_OVERFLOW", details: { what: "mandatory", required: mandatory } });
  });

  // Mutants layout.ts:201 (the open pair's messages charged without their framing) and :240
  // `tailStart < 0` as `<= 0` (an open pair at the start of the transcript not mandatory).
  it("counts the open tool pair, framing included, as mandatory: with only that pair, everything is", () => {
    for (const turns of [1, 3]) {
      const { mandatory, used } = compile(inputAt(transcript, turns), FAST).manifest.allocation;
      const fixed = compile(inputAt(transcript, 0), FAST).manifest.allocation.mandatory;
      const pair = compile(inputAt(transcript, 1), FAST).manifest.allocation.used - fixed;
      expect(pair).toBeGreaterThan(8);
      if (turns === 1) expect(mandatory).toBe(used);
      // Later turns: the same fixed part and the last pair (the same size in this transcript).
      else expect(mandatory).toBe(fixed + pair);
    }
  });

  // Stryker's layout.ts:240 `tailStart < 0` as `false`: with no assistant message (no open
  // pair), the whole transcript was counted as mandatory.
  it("counts nothing of a transcript without an assistant message as mandatory", () => {
    const notes: SourceMessage[] = Array.from({ length: 4 }, (_, index) => ({
      id: `event:${index + 3}`,
      message: { role: "user", content: [{ type: "text", text: `Note ${index}: ${"detail ".repeat(40)}` }] },
    }));
    const fixed = compile(inputAt([], 0), FAST).manifest.allocation.mandatory;
    const { mandatory, used } = compile(inputAt([], 0, { transcript: notes }), FAST).manifest.allocation;
    expect(used).toBeGreaterThan(fixed + 100);
    expect(mandatory).toBe(fixed);
  });

  // Mutant layout.ts:243 (a summary's tokens left out of what the transcript uses).
  it("counts a summary toward the window: a compacted transcript that fills it exactly fits, one token less overflows", () => {
    const summary = "Turn 0 read src/module_0.ts.";
    const compactions: ContextRevision[] = [
      { revision: 1, parent: 0, replaces: ["event:3", "event:5"], summary, summaryHash: sha256Hex(summary), trust: "tool_output", summarizer: "extractive" },
    ];
    const input = inputAt(transcript, 12, { compactions });
    const { used, sections } = compile(input, FAST).manifest.allocation;
    expect(sections.summary).toBeGreaterThan(0);
    const at = (contextWindow: number) => () => compile(input, { ...FAST, contextWindow, maxOutputTokens: 1_000 });
    expect(at(used + 1_000)().manifest.allocation.free).toBe(0);
    expect(thrown(at(used + 999))).toMatchObject({ code: "CONTEXT_OVERFLOW", details: { what: "transcript", required: used } });
  });

  // Mutant compiler.ts:242 `layout.used > available` as `>=` (a transcript that fits exactly was compacted).
  it("does not compact a transcript that fills the window less the reserve exactly", () => {
    const { used } = compile(inputAt(transcript, 12), FAST).manifest.allocation;
    const config: CompileConfig = { ...FAST, contextWindow: used + 1_000, maxOutputTokens: 1_000, compaction: { threshold: 0.5, keepRecentMessages: 2 } };
    const exact = compile(inputAt(transcript, 12), config);
    expect(exact.compactions).toEqual([]);
    expect(exact.manifest.allocation.free).toBe(0);
    expect(exact.compactionDue).toBe(true);
    // One token less and it is compacted.
    expect(compile(inputAt(transcript, 12), { ...config, contextWindow: used + 999 }).compactions).toHaveLength(1);
  });
});

describe("what a compile depends on", () => {
  // Mutants compiler.ts:111, :112, :113, :121 (a config field that changes rendering left out of the digest).
  it("digests every config field that changes rendering: each change gives another configDigest", () => {
    const input = inputAt(makeTranscript(2), 2);
    const policy = { threshold: 0.8 };
    const variants: CompileConfig[] = [
      { ...FAST, compaction: policy },
      { ...FAST, compaction: policy, toolOutputBudgetBytes: 4_096 },
      { ...FAST, compaction: policy, toolOutputBudgets: { read_file: 4_096 } },
      { ...FAST, compaction: policy, tokenCounter: estimatedTokenCounter(2.5) },
      { ...FAST, compaction: { ...policy, maxSummaryChars: 1_000 } },
      { ...FAST, compaction: { ...policy, keepRecentMessages: 3 } },
      { ...FAST, compaction: { threshold: 0.7 } },
      { ...FAST, compaction: policy, delimiterSeed: "seed" },
      { ...FAST, compaction: policy, temperature: 0 },
    ];
    const digests = variants.map((config) => compile(input, config).manifest.configDigest);
    expect(new Set(digests).size).toBe(variants.length);
  });

  // Mutant compiler.ts:61 (the nonce from the task alone).
  it("draws the delimiter nonce from the system prompt as well as the task", () => {
    const nonce = (systemPrompt: string) => compile(inputAt([], 0, { systemPrompt }), FAST).manifest.delimiterNonce;
    expect(nonce("You are terse.")).not.toBe(nonce("You are careful."));
  });

  // Mutant compiler.ts:367 `layout.used > threshold` as `>=`.
  it("is due for compaction only above the threshold, not at it", () => {
    const input = inputAt(makeTranscript(12), 12);
    const { used } = compile(input, FAST).manifest.allocation;
    const due = (available: number) =>
      compile(input, { ...FAST, contextWindow: available + 1_000, maxOutputTokens: 1_000, compaction: { threshold: 0.5 } }).compactionDue;
    expect(due(2 * used)).toBe(false);
    expect(due(2 * used - 2)).toBe(true);
  });
});

describe("compactContext", () => {
  // Mutant layout.ts:268 (tailStartOf giving -1 when there is no open pair: nothing could be compacted).
  it("compacts a transcript with no tool call at all (no open pair to keep)", async () => {
    const transcript: SourceMessage[] = Array.from({ length: 12 }, (_, index) => ({
      id: `event:${index + 3}`,
      message: { role: "user", content: [{ type: "text", text: `Note ${index}: ${"detail ".repeat(40)}` }] },
    }));
    const config: CompileConfig = { ...FAST, compaction: { threshold: 0.5, keepRecentMessages: 2 } };
    const revision = await compactContext({ revision: 20, task: "t", tools: [], transcript }, config, { force: true });
    expect(revision?.replaces[0]).toBe("event:3");
    expect(revision?.replaces).not.toContain("event:13");
  });
});

describe("an inline compaction", () => {
  const transcript = makeTranscript(60);
  const SMALL: CompileConfig = { ...FAST, contextWindow: 3_000, maxOutputTokens: 500, compaction: { threshold: 0.6, keepRecentMessages: 4 } };

  // Mutants compiler.ts:244 (target = the whole budget, not the threshold) and :246 (the summary's own tokens not allowed for).
  it("compacts down to the threshold, summary included, so the next turn is not due another", () => {
    const result = compile(inputAt(transcript, 60), SMALL);
    expect(result.compactions).toHaveLength(1);
    const { used } = result.manifest.allocation;
    expect(used).toBeLessThanOrEqual(Math.floor((SMALL.contextWindow - SMALL.maxOutputTokens) * 0.6));
    expect(result.compactionDue).toBe(false);
  });

  // Mutant compiler.ts:262 `compactionFailed` always false.
  it("says the extractive compaction failed when nothing may be compacted and the transcript still does not fit", () => {
    const config: CompileConfig = { ...SMALL, compaction: { threshold: 0.6, keepRecentMessages: 200 } };
    expect(thrown(() => compile(inputAt(transcript, 60), config))).toMatchObject({
      code: "CONTEXT_OVERFLOW",
      details: { what: "transcript", compactionRequired: false, compactionFailed: true },
    });
    // Without a policy there was no compaction to fail.
    expect(
      thrown(() => compile(inputAt(transcript, 60), { ...FAST, contextWindow: SMALL.contextWindow, maxOutputTokens: SMALL.maxOutputTokens })),
    ).toMatchObject({
      details: { what: "transcript", compactionRequired: false, compactionFailed: false },
    });
  });
});
