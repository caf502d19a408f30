import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "@yoke/protocol";
import { createContextCompiler } from "./compiler.js";
import { CONFIG, inputAt, makeTranscript } from "./__fixtures__/runs.js";
import { applyManifestDelta, diffManifest } from "./manifest-delta.js";
import { ManifestDeltaSchema, ManifestSchema, type Manifest } from "./manifest-schema.js";
import { estimatedTokenCounter } from "./tokenizer.js";

const FAST = { ...CONFIG, tokenCounter: estimatedTokenCounter() };
const evidence = [{ id: "doc:a", kind: "evidence" as const, text: "Tests run with vitest.", priority: 1 }];

describe("manifest deltas", () => {
  it("round-trip: applying each turn's delta to the previous manifest gives the next", () => {
    const transcript = makeTranscript(30, { largeEvery: 5 });
    const compiler = createContextCompiler(FAST);
    let previous: Manifest | undefined;
    let rebuilt: Manifest | undefined;
    for (let turn = 0; turn <= 30; turn++) {
      const { manifest } = compiler.compile(inputAt(transcript, turn, { evidence }));
      const delta = ManifestDeltaSchema.parse(JSON.parse(canonicalJson(diffManifest(previous, manifest))));
      rebuilt = applyManifestDelta(rebuilt, delta);
      expect(canonicalJson(rebuilt)).toBe(canonicalJson(manifest));
      expect(ManifestSchema.safeParse(rebuilt).success).toBe(true);
      previous = manifest;
    }
  });

  it("sets a field exactly when its canonical JSON changed (key order and undefined members do not count)", () => {
    const { manifest } = createContextCompiler(FAST).compile(inputAt(makeTranscript(2), 1));
    const reordered = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(reordered);
      if (typeof value !== "object" || value === null) return value;
      return Object.fromEntries([
        ...Object.entries(value)
          .reverse()
          .map(([key, member]) => [key, reordered(member)]),
        ["absent", undefined],
      ]);
    };
    const field = fc.constantFrom("tokenizer", "header", "tools", "allocation", "stablePrefix", "model") satisfies fc.Arbitrary<keyof Manifest>;
    fc.assert(
      fc.property(field, fc.jsonValue(), fc.jsonValue(), fc.boolean(), (name, left, right, equal) => {
        const before = { ...manifest, [name]: left } as Manifest;
        const value = equal ? reordered(JSON.parse(JSON.stringify(left))) : right;
        const after = { ...manifest, [name]: value } as Manifest;
        const changed = canonicalJson(left) !== canonicalJson(value);
        expect(name in diffManifest(before, after).set).toBe(changed);
      }),
      { numRuns: 500 },
    );
  });

  it("refuses a delta made against another manifest", () => {
    const transcript = makeTranscript(3);
    const compiler = createContextCompiler(FAST);
    const first = compiler.compile(inputAt(transcript, 1)).manifest;
    const second = compiler.compile(inputAt(transcript, 2)).manifest;
    const third = compiler.compile(inputAt(transcript, 3)).manifest;
    expect(() => applyManifestDelta(first, diffManifest(second, third))).toThrow(expect.objectContaining({ code: "JOURNAL_CORRUPT" }));
  });

  it("keeps the journal of an 800-turn run's manifests within a few MB, growing linearly", () => {
    const transcript = makeTranscript(800, { largeEvery: 25 });
    const compiler = createContextCompiler({ ...FAST, contextWindow: 1_000_000 });
    let previous: Manifest | undefined;
    let total = 0;
    const at: Record<number, number> = {};
    for (let turn = 1; turn <= 800; turn++) {
      const { manifest } = compiler.compile(inputAt(transcript, turn, { evidence }));
      total += Buffer.byteLength(canonicalJson(diffManifest(previous, manifest)));
      previous = manifest;
      if (turn === 400 || turn === 800) at[turn] = total;
    }
    expect(total).toBeLessThan(3 * 1024 * 1024);
    // Linear: the second half costs about what the first did (a full snapshot each turn would be ~3×).
    expect(at[800]! / at[400]!).toBeLessThan(2.2);
    // A full snapshot of the last manifest, for scale.
    expect(Buffer.byteLength(canonicalJson(previous))).toBeGreaterThan(total / 800);
  });
});
