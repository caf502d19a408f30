import { describe, expect, it } from "vitest";
import { compile } from "./compiler.js";
import { CONFIG, inputAt, makeTranscript } from "./__fixtures__/runs.js";
import { ChildResultSchema, checkChildResult, forkContext } from "./fork.js";
import { estimatedTokenCounter } from "./tokenizer.js";

const FAST = { ...CONFIG, tokenCounter: estimatedTokenCounter() };

describe("forks", () => {
  const transcript = makeTranscript(6);
  const parentInput = inputAt(transcript, 6, { evidence: [{ id: "doc:1", kind: "evidence", text: "The parser lives in src/parse.ts.", priority: 1 }] });
  const parent = { input: parentInput, manifest: compile(parentInput, FAST).manifest };

  it("starts a child from an explicit parent revision with shared items as evidence, not the transcript", () => {
    const { input, origin } = forkContext(parent, { task: "Find why module 3 fails.", share: ["event:18", "doc:1"] });
    expect(origin).toEqual({
      parentRevision: parent.manifest.revision,
      parentContextRevision: 0,
      parentRequestHash: parent.manifest.requestHash,
      shared: ["event:18", "doc:1"],
    });
    expect(input.transcript).toEqual([]);
    expect(input.constraints).toEqual(parentInput.constraints);
    expect(input.evidence!.map((item) => [item.id, item.trust])).toEqual([
      ["parent:event:18", "retrieved"],
      ["parent:doc:1", "retrieved"],
    ]);
    const child = compile(input, FAST);
    expect(child.manifest.items.find((item) => item.id === "constraint:no-push")?.decision).toBe("included");
    expect(child.request.messages.some((message) => message.role === "assistant")).toBe(false);
  });

  it("refuses to share an item the parent revision does not have", () => {
    expect(() => forkContext(parent, { task: "x", share: ["event:999"] })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("accepts typed claims whose evidence the child was shown, and reports the rest", () => {
    const { input, origin } = forkContext(parent, { task: "Find why module 3 fails.", share: ["event:20"] });
    const childManifest = compile(input, FAST).manifest;
    const good = {
      origin,
      status: "completed",
      claims: [{ claim: "module 3 reads a missing file", confidence: "high", evidence: [{ ref: "parent:event:20" }] }],
    };
    const checked = checkChildResult(good, { origin, childManifest });
    expect(checked.ok && ChildResultSchema.parse(checked.result)).toBeTruthy();
    const bad = checkChildResult({ ...good, claims: [{ claim: "c", confidence: "high", evidence: [{ ref: "event:2" }] }] }, { origin, childManifest });
    expect(bad).toEqual({ ok: false, issues: ["claims.0: evidence event:2 was not shown to the child"] });
    const shapeless = checkChildResult({ origin, status: "completed", claims: [{ claim: "c", confidence: "high", evidence: [] }] }, { origin, childManifest });
    expect(shapeless.ok).toBe(false);
  });
});
