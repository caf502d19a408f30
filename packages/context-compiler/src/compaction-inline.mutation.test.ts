// compiler.ts's inline compaction when one compaction is not enough (issue 17, the mutant
// `attempt < 2` as `attempt < 1`): the summary allowance assumes about 2.5 characters a token,
// so under a counter that sees fewer (here an estimate of 2), the first summary costs more
// than was freed for it and a second compaction, folding the first summary in, is needed.
import { describe, expect, it } from "vitest";
import { CONFIG, inputAt, makeTranscript } from "./__fixtures__/runs.js";
import { compile, estimatedTokenCounter, type CompileConfig } from "./index.js";

describe("an inline compaction that needs a second pass", () => {
  const config: CompileConfig = {
    ...CONFIG,
    tokenCounter: estimatedTokenCounter(2),
    contextWindow: 3_000,
    maxOutputTokens: 500,
    compaction: { threshold: 1, keepRecentMessages: 4 },
  };

  it("compacts twice, the second folding the first summary in, and then fits", () => {
    const input = inputAt(makeTranscript(60), 60);
    const result = compile(input, config);
    expect(result.compactions).toHaveLength(2);
    const [first, second] = result.compactions;
    expect(first?.revision).toBe(1);
    expect(second).toMatchObject({ revision: 2, parent: 1 });
    expect(second?.replaces[0]).toBe("summary:1");
    expect(result.manifest.allocation.used).toBeLessThanOrEqual(config.contextWindow - config.maxOutputTokens);
    expect(result.manifest.contextRevision).toBe(2);
    // The first compaction alone does not fit: journaled, the compile makes the second again.
    const again = compile({ ...input, compactions: [first!] }, config);
    expect(again.compactions).toEqual([second]);
  });

  // Mutants compiler.ts:249 `attempt < 2` as `true` and `attempt++` as `attempt--`: with no bound,
  // a transcript that compaction cannot bring under the window is folded again and again (each
  // pass keeping the last summary whole, freeing nothing): the compile never returned.
  it("gives up after two passes when compaction cannot free enough", () => {
    const tight: CompileConfig = { ...config, tokenCounter: estimatedTokenCounter(1), compaction: { threshold: 0.8, keepRecentMessages: 2 } };
    let error: unknown;
    try {
      compile(inputAt(makeTranscript(60), 60), tight);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: "CONTEXT_OVERFLOW", details: { what: "transcript", compactionFailed: true } });
  });

  // Mutant compiler.ts:249 `layout.used > available` as `>=` (a compaction that lands exactly on
  // the window compacted again). The window was found by search: one compaction, no token free.
  it("stops when a compaction leaves the context exactly filling the window", () => {
    const exact: CompileConfig = { ...config, tokenCounter: estimatedTokenCounter(2.2), contextWindow: 2_546 };
    const result = compile(inputAt(makeTranscript(60), 60), exact);
    expect(result.compactions).toHaveLength(1);
    expect(result.manifest.allocation.free).toBe(0);
  });
});
