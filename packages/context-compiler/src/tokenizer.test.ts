import { describe, expect, it } from "vitest";
import { ESTIMATED_CHARS_PER_TOKEN, encodingForModel, estimatedTokenCounter, tiktokenCounter, tokenCounterForModel } from "./tokenizer.js";

// Calibration sample: prose, source code, JSON and a tool log, as an agent's context holds.
const SAMPLE = [
  "The context compiler reserves mandatory state and output headroom first, then fills optional evidence by priority. When mandatory state does not fit, it returns a typed error rather than silently dropping a constraint.",
  "export function add(a: number, b: number): number {\n  return a + b;\n}\n\nconst values = [1, 2, 3].map((value) => add(value, 10));\n",
  JSON.stringify({
    path: "src/index.ts",
    lines: 120,
    exports: ["compile", "createContextCompiler"],
    ok: true,
    timing: { startedAt: 1700000000000, endedAt: 1700000000042 },
  }),
  " FAIL  src/compiler.test.ts > compile > keeps the prefix\nAssertionError: expected false to be true\n    at /work/main/packages/context-compiler/src/compiler.test.ts:88:21\n",
  "Bitte prüfe die Datei und antworte auf Deutsch: Größe, Änderungen, Fehler.",
].join("\n\n");

describe("token counting", () => {
  it("chooses the encoding per model", () => {
    expect(["gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-5", "o1", "o3-mini", "o4-mini"].map(encodingForModel)).toEqual(Array(7).fill("o200k_base"));
    expect(["gpt-4", "gpt-4-turbo", "gpt-3.5-turbo", "text-embedding-3-small"].map(encodingForModel)).toEqual(Array(4).fill("cl100k_base"));
    expect(encodingForModel("claude-sonnet-4-5")).toBeUndefined();
    expect(tokenCounterForModel("gpt-4o")).toMatchObject({ encoding: "o200k_base", mode: "exact" });
    expect(tokenCounterForModel("claude-sonnet-4-5")).toMatchObject({
      encoding: "estimate:claude",
      mode: "estimated",
      charsPerToken: ESTIMATED_CHARS_PER_TOKEN,
    });
  });

  it("counts with the real tokenizer, special-token text included", () => {
    const o200k = tiktokenCounter("o200k_base");
    expect(o200k.count("hello world")).toBe(2);
    expect(o200k.count("")).toBe(0);
    expect(o200k.count("<|endoftext|> is text here")).toBeGreaterThan(3);
    expect(tiktokenCounter("cl100k_base").count("hello world")).toBe(2);
  });

  it("calibrates the declared estimate against the real tokenizers: it over-counts, by less than 40%", () => {
    const estimate = estimatedTokenCounter().count(SAMPLE);
    for (const encoding of ["o200k_base", "cl100k_base"] as const) {
      const exact = tiktokenCounter(encoding).count(SAMPLE);
      expect(estimate).toBeGreaterThanOrEqual(exact);
      expect(estimate / exact).toBeLessThan(1.4);
    }
  });

  it("rejects a non-positive ratio", () => {
    expect(() => estimatedTokenCounter(0)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});
