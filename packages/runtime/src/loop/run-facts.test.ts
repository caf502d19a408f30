import type { YokeEvent } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { callSignature, createRunFacts, observeRunFacts } from "./run-facts.js";

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

/** An event with only what observeRunFacts reads of it. */
const ev = (type: string, data: Record<string, unknown>): YokeEvent => ({ type, data }) as unknown as YokeEvent;
const ok = (text: string) => ({ status: "ok", content: [{ type: "text", text }] });
const responded = (turnId: string, stopReason: string) => ev("model.responded", { turnId, response: { stopReason } });
const verdict = (verifierId: string, passed: boolean) => ({ verifierId, kind: "scripted", passed, reason: passed ? "green" : "red" });

// What each fact holds, event by event: written against survivors of reports/mutation/runtime.md (issue 17) at
// run-facts.ts :69 :72 :78 :86 :87 :95 :97 :99 :113 :114, each applied by hand.
describe("run facts, event by event", () => {
  it("an action settles once, on its last outcome: a failure with a retry following leaves it open", () => {
    const facts = createRunFacts();
    observeRunFacts(facts, ev("action.admitted", { actionId: "a1", toolName: "store", input: { key: "k" } }));
    observeRunFacts(facts, ev("action.failed", { actionId: "a1", retrying: true, result: { status: "error" } }));
    expect(facts.loop).toEqual([]);
    expect([...facts.openActions.keys()]).toEqual(["a1"]);
    observeRunFacts(facts, ev("action.committed", { actionId: "a1", result: ok("stored k") }));
    expect(facts.loop).toEqual([
      { kind: "call", toolName: "store", toolRevision: undefined, signature: callSignature("name:store", { key: "k" }, ok("stored k")) },
    ]);
    expect([...facts.openActions.keys()]).toEqual([]);
  });

  it("without a tool revision, the tool's name is in the signature: two tools told the same thing differ", () => {
    const facts = createRunFacts();
    for (const [actionId, toolName] of [
      ["a1", "store"],
      ["a2", "stash"],
    ]) {
      observeRunFacts(facts, ev("action.admitted", { actionId, toolName, input: { key: "k" } }));
      observeRunFacts(facts, ev("action.committed", { actionId, result: ok("done") }));
    }
    const [first, second] = facts.loop;
    expect(first?.kind === "call" && second?.kind === "call" && first.signature !== second.signature).toBe(true);
    expect([...facts.loopIndex.counts.values()]).toEqual([1, 1]);
  });

  it("only a steering loop detection is a steer; an operator's or an interrupt's input clears the history, others do not", () => {
    const facts = createRunFacts();
    observeRunFacts(facts, ev("loop.detected", { response: "escalate" }));
    expect(facts.loop).toEqual([]);
    expect(facts.loopIndex.steers).toBe(0);
    for (const source of ["interrupt", "operator"]) {
      observeRunFacts(facts, ev("loop.detected", { response: "steer" }));
      observeRunFacts(facts, ev("input.added", { source: "loop-detection" }));
      expect(facts.loopIndex.steers).toBe(1);
      observeRunFacts(facts, ev("input.added", { source }));
      expect(facts.loop).toEqual([]);
      expect(facts.loopIndex.steers).toBe(0);
    }
  });

  it("max_tokens responses are counted in a row within one turn: another stop reason or another turn starts again", () => {
    const facts = createRunFacts();
    observeRunFacts(facts, responded("turn_1", "max_tokens"));
    observeRunFacts(facts, responded("turn_1", "max_tokens"));
    expect(facts.maxTokens).toEqual({ turnId: "turn_1", count: 2 });
    observeRunFacts(facts, responded("turn_2", "max_tokens"));
    expect(facts.maxTokens).toEqual({ turnId: "turn_2", count: 1 });
    observeRunFacts(facts, responded("turn_2", "end_turn"));
    expect(facts.maxTokens).toEqual({ turnId: "turn_2", count: 0 });
  });

  it("the gate holds the current turn's verifiers: a verdict moves one from started to finished; a failed one marks its turn", () => {
    const facts = createRunFacts();
    for (const verifierId of ["v1", "v2"])
      observeRunFacts(facts, ev("verifier.started", { turnId: "turn_1", verifierId, verifierRunId: `run_${verifierId}`, replaySafe: true }));
    observeRunFacts(facts, ev("verifier.finished", { turnId: "turn_1", verdict: verdict("v1", true) }));
    expect(facts.gate.turnId).toBe("turn_1");
    expect([...facts.gate.started.keys()]).toEqual(["v2"]);
    expect([...facts.gate.finished.keys()]).toEqual(["v1"]);
    expect([...facts.failedGateTurns]).toEqual([]);
    observeRunFacts(facts, ev("verifier.finished", { turnId: "turn_2", verdict: verdict("v2", false) }));
    expect(facts.gate.turnId).toBe("turn_2");
    expect([...facts.gate.started.keys()]).toEqual([]);
    expect([...facts.gate.finished.keys()]).toEqual(["v2"]);
    expect([...facts.failedGateTurns]).toEqual(["turn_2"]);
  });
});
