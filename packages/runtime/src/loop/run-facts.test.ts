import type { YokeEvent } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRunFacts, observeRunFacts } from "./run-facts.js";

/** Only what observeRunFacts reads of each event: the fold of the facts, not of the run. */
type Step =
  | { kind: "admit"; action: number; tool: number; input: number }
  | { kind: "commit"; action: number; result: number }
  | { kind: "fail"; action: number; retrying: boolean }
  | { kind: "steer" }
  | { kind: "input"; source: "operator" | "interrupt" | "user" | "loop-detection" };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("admit" as const), action: fc.nat(5), tool: fc.nat(2), input: fc.nat(2) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("commit" as const), action: fc.nat(5), result: fc.nat(1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("fail" as const), action: fc.nat(5), retrying: fc.boolean() }) },
  { weight: 1, arbitrary: fc.constant({ kind: "steer" as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("input" as const), source: fc.constantFrom("operator", "interrupt", "user", "loop-detection") }) },
);

function eventOf(item: Step): YokeEvent {
  const data = (() => {
    switch (item.kind) {
      case "admit":
        return { type: "action.admitted", data: { actionId: `a${item.action}`, toolName: `tool_${item.tool}`, input: { n: item.input } } };
      case "commit":
        return {
          type: "action.committed",
          data: { actionId: `a${item.action}`, result: { status: "ok", content: [{ type: "text", text: `r${item.result}` }] } },
        };
      case "fail":
        return { type: "action.failed", data: { actionId: `a${item.action}`, retrying: item.retrying, result: { status: "error" } } };
      case "steer":
        return { type: "loop.detected", data: { response: "steer" } };
      default:
        return { type: "input.added", data: { source: item.source } };
    }
  })();
  return data as unknown as YokeEvent;
}

describe("run facts: the loop index", () => {
  it("always holds the calls per signature and the steers of the loop history, whatever events came in whatever order", () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const facts = createRunFacts();
        for (const item of steps) {
          observeRunFacts(facts, eventOf(item));
          const counts = new Map<string, number>();
          let steers = 0;
          for (const entry of facts.loop) {
            if (entry.kind === "steer") steers++;
            else counts.set(entry.signature, (counts.get(entry.signature) ?? 0) + 1);
          }
          expect(facts.loopIndex.counts).toEqual(counts);
          expect(facts.loopIndex.steers).toBe(steers);
        }
      }),
      { numRuns: 300 },
    );
  });
});
