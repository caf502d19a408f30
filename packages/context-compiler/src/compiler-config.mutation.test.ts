// compiler.ts's config checks, configDigest, tokenizer record, overflow details and the tools
// cache, against the survivors of the 2026-12-03 Stryker run (issue 17; each mutant named in
// its test was applied by hand: the test fails on it and passes on the code).
import { YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { CONFIG, TOOLS, inputAt, makeTranscript } from "./__fixtures__/runs.js";
import { compile, createContextCompiler, estimatedTokenCounter, type CompileConfig } from "./index.js";

const FAST: CompileConfig = { ...CONFIG, tokenCounter: estimatedTokenCounter() };

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("an invalid config", () => {
  // Mutants compiler.ts:67 (the message as ``, the options or the details as {}), :69, :71
  // (the field's name as ""), :72 and :74 (the message as "").
  it("names the field and its value", () => {
    const invalid = (config: CompileConfig) => {
      const error = thrown(() => createContextCompiler(config));
      expect(YokeError.hasCode(error, "CONFIG_INVALID")).toBe(true);
      return error as YokeError;
    };
    const contextWindow = invalid({ ...FAST, contextWindow: 0.5 });
    expect(contextWindow.message).toBe("contextWindow must be a positive integer");
    expect(contextWindow.details).toEqual({ contextWindow: 0.5 });
    const budget = invalid({ ...FAST, toolOutputBudgetBytes: -1 });
    expect(budget.message).toBe("toolOutputBudgetBytes must be a positive integer");
    expect(budget.details).toEqual({ toolOutputBudgetBytes: -1 });
    expect(invalid({ ...FAST, maxOutputTokens: 0 }).details).toEqual({ maxOutputTokens: 0 });
    expect(invalid({ ...FAST, contextWindow: 4_000, maxOutputTokens: 4_000 }).message).toBe("maxOutputTokens must be smaller than contextWindow");
    expect(invalid({ ...FAST, compaction: { threshold: 2 } }).message).toBe("compaction.threshold must be in (0, 1]");
  });
});

describe("the manifest's tokenizer", () => {
  // Mutants compiler.ts:92 (`charsPerToken !== undefined` as true, false, `===`).
  it("records an estimate's characters a token, and no such member for an exact tokenizer", () => {
    const input = inputAt(makeTranscript(1), 1);
    expect(compile(input, { ...FAST, tokenCounter: estimatedTokenCounter(2.5) }).manifest.tokenizer).toStrictEqual({
      encoding: "estimate",
      mode: "estimated",
      charsPerToken: 2.5,
    });
    const counter = estimatedTokenCounter();
    const exactCounter = { encoding: "test-exact", mode: "exact" as const, count: counter.count };
    const exact = compile(input, { ...FAST, tokenCounter: exactCounter }).manifest.tokenizer;
    expect(exact).toStrictEqual({ encoding: "test-exact", mode: "exact" });
    expect(Object.keys(exact)).toEqual(["encoding", "mode"]);
  });
});

describe("configDigest", () => {
  const input = inputAt(makeTranscript(2), 2);
  const digest = (config: CompileConfig) => compile(input, config).manifest.configDigest;

  // Mutants compiler.ts:111-117 (`??` as `&&`: every set value digested as the default, or as null;
  // a temperature of 0 is the one value that survives that).
  it("digests the value of each field, not only whether it is set", () => {
    const pairs: [Partial<CompileConfig>, Partial<CompileConfig>][] = [
      [{ toolOutputBudgetBytes: 4_096 }, { toolOutputBudgetBytes: 8_192 }],
      [{ toolOutputBudgets: { read_file: 4_096 } }, { toolOutputBudgets: { read_file: 8_192 } }],
      [{ delimiterSeed: "a" }, { delimiterSeed: "b" }],
      [{ toolChoice: "auto" }, { toolChoice: "required" }],
      [{ temperature: 0.2 }, { temperature: 0.7 }],
      [{ providerOptions: { openai: { parallelToolCalls: false } } }, { providerOptions: { openai: { parallelToolCalls: true } } }],
    ];
    for (const [a, b] of pairs) expect(digest({ ...FAST, ...a }), JSON.stringify([a, b])).not.toBe(digest({ ...FAST, ...b }));
    // Stating a default is leaving it out.
    expect(digest({ ...FAST, toolOutputBudgetBytes: 16 * 1024 })).toBe(digest(FAST));
    expect(digest({ ...FAST, toolOutputBudgets: {} })).toBe(digest(FAST));
  });

  // Mutants compiler.ts:121 (the summarizer kind forced, inverted, or its names as ""): a model
  // summarizer renders other summaries. The digests are pinned: a change of configDigest marks
  // every journaled manifest as compiled under another config.
  it("digests the summarizer's kind, and is stable across versions", () => {
    const extractive = digest({ ...FAST, compaction: { threshold: 0.8 } });
    const model = digest({ ...FAST, compaction: { threshold: 0.8, summarize: async () => "summary" } });
    expect(model).not.toBe(extractive);
    expect({ extractive, model }).toEqual({
      extractive: "1ccc63f9630a4ece3cc94ee04cef8a2f3a5fb45d5ba2aeefdc9d08744b324c08",
      model: "620c7348a82f5d7458074a4528d439c5de4f54f4568aa48ea5f137b5a77a5797",
    });
  });
});

describe("a context overflow's details", () => {
  const transcript = makeTranscript(60);

  // Mutants compiler.ts:240 (the sections as {}) and :241 (compactionRequired: true).
  it("gives the sections of mandatory state, and asks for no compaction", () => {
    const fixed = compile(inputAt(transcript, 0), FAST).manifest.allocation;
    const error = thrown(() => compile(inputAt(transcript, 0), { ...FAST, contextWindow: fixed.mandatory + 999, maxOutputTokens: 1_000 }));
    expect(error).toMatchObject({ code: "CONTEXT_OVERFLOW", details: { what: "mandatory", compactionRequired: false } });
    const { sections } = (error as YokeError).details as { sections: Record<string, number> };
    expect(sections).toEqual({ ...fixed.sections, evidence: 0 });
    expect(sections.system).toBeGreaterThan(0);
  });

  // Mutants compiler.ts:264 (the sections as {}) and :266 (compactionFailed true for a model summarizer).
  it("gives the transcript's sections, and with a model summarizer asks for compactContext, not a failed compaction", () => {
    const full = compile(inputAt(transcript, 60), FAST).manifest.allocation;
    const config: CompileConfig = { ...FAST, contextWindow: 3_000, maxOutputTokens: 500, compaction: { threshold: 0.6, summarize: async () => "summary" } };
    const error = thrown(() => compile(inputAt(transcript, 60), config));
    expect(error).toMatchObject({ code: "CONTEXT_OVERFLOW", details: { what: "transcript", compactionRequired: true, compactionFailed: false } });
    const { sections } = (error as YokeError).details as { sections: Record<string, number> };
    expect(sections).toEqual({ ...full.sections, evidence: 0 });
    expect(sections.transcript).toBeGreaterThan(2_500);
  });
});

describe("an inline compaction", () => {
  // Mutant compiler.ts:250 `layout.used - target` as `+` (everything that may be compacted is).
  it("compacts only the oldest messages it needs to, down to the threshold", () => {
    const config: CompileConfig = { ...FAST, contextWindow: 5_000, maxOutputTokens: 500, compaction: { threshold: 0.8, keepRecentMessages: 4 } };
    const result = compile(inputAt(makeTranscript(60), 60), config);
    expect(result.compactions).toHaveLength(1);
    const replaced = result.compactions[0]!.replaces;
    expect(replaced[0]).toBe("event:3");
    // 114 messages may be compacted (120, less the 4 kept and the open pair); far fewer are.
    expect(replaced.length).toBeLessThan(100);
    expect(result.manifest.allocation.used).toBeGreaterThan(4_500 * 0.8 - 600);
  });
});

describe("a long-lived compiler's tools", () => {
  // Mutant compiler.ts:153 `value !== key[index]` as `===` (the cached tools kept when every part of their key changed at once).
  it("renders the tools again when the tools, remote tools, revisions and nonce all change at once", () => {
    const config: CompileConfig = FAST;
    const compiler = createContextCompiler(config);
    const first = inputAt(makeTranscript(1), 1, { tools: TOOLS.slice(0, 1), remoteTools: [], toolRevisions: { read_file: "sha256:a" } });
    compiler.compile(first);
    const second = inputAt(makeTranscript(1), 1, { task: "Another task.", tools: TOOLS, remoteTools: ["run_tests"], toolRevisions: { read_file: "sha256:b" } });
    const long = compiler.compile(second);
    const fresh = compile(second, config);
    expect(long.bytes).toBe(fresh.bytes);
    expect(long.manifest).toEqual(fresh.manifest);
    expect(long.request.tools).toHaveLength(2);
  });
});

describe("a long-lived compiler's artifacts", () => {
  // Stryker's compiler.ts:302 `columns.artifacts.slice(0, count.artifacts)` as `columns.artifacts`
  // (a result's artifacts the layout's shared column, which later turns append to). Survived the
  // second run of 2026-12-03. With evidence, layout.ts's columnsAfter copies the column (its
  // length no longer matches), so the turns here have none.
  it("never changes the artifacts of a result it returned", () => {
    const config: CompileConfig = { ...FAST, toolOutputBudgets: { read_file: 1_000 } };
    const transcript = makeTranscript(4, { largeEvery: 1, largeBytes: 5_000 });
    const compiler = createContextCompiler(config);
    const first = compiler.compile(inputAt(transcript, 2));
    const before = first.artifacts.slice();
    expect(before.length).toBeGreaterThanOrEqual(2);
    const second = compiler.compile(inputAt(transcript, 4));
    expect(second.artifacts).toEqual(compile(inputAt(transcript, 4), config).artifacts);
    expect(first.artifacts).toEqual(before);
  });
});
