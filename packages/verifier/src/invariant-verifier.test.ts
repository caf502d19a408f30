import { describe, expect, it } from "vitest";
import { endTurn, inputOf } from "./__fixtures__/inputs.js";
import { invariantVerifier } from "./invariant-verifier.js";

const turn = [
  { type: "turn.started", data: { turnId: "turn_1", index: 1 } },
  { type: "model.requested", data: { turnId: "turn_1", requestHash: "0".repeat(64), messageCount: 1 } },
  { type: "model.responded", data: { turnId: "turn_1", response: endTurn("done"), latencyMs: 3 } },
];

describe("invariantVerifier", () => {
  it("checks a predicate over the folded state and the events", async () => {
    const seen: string[] = [];
    const oneTurn = invariantVerifier({
      id: "one-turn",
      description: "the run took one turn",
      check: (state, events) => {
        seen.push(`${state.phase} ${events.length}`);
        return state.turns === 1;
      },
    });
    expect(await oneTurn.verify(inputOf({ drafts: turn, fold: true }))).toEqual({ verifierId: "one-turn", kind: "invariant", passed: true });
    const failing = await oneTurn.verify(inputOf({ fold: true }));
    expect(failing).toEqual({
      verifierId: "one-turn",
      kind: "invariant",
      passed: false,
      retry: true,
      reason: "the invariant does not hold: the run took one turn",
    });
    expect(seen).toEqual(["responded 4", "ready 1"]);
  });

  it("a check may return its own reason, asynchronously", async () => {
    const verifier = invariantVerifier({ id: "i", description: "d", check: async () => ({ passed: false, reason: "3 files still unformatted" }) });
    expect(await verifier.verify(inputOf())).toMatchObject({ passed: false, reason: "3 files still unformatted" });
  });

  it("a check that throws, or answers neither a boolean nor { passed }, is VERIFIER_FAILED", async () => {
    const throwing = invariantVerifier({ id: "i", description: "d", check: () => JSON.parse("{") as boolean });
    await expect(throwing.verify(inputOf())).rejects.toMatchObject({ code: "VERIFIER_FAILED" });
    const odd = invariantVerifier({ id: "i", description: "d", check: () => "yes" as never });
    await expect(odd.verify(inputOf())).rejects.toMatchObject({ code: "VERIFIER_FAILED" });
  });

  it("is replay-safe with its description", () => {
    expect(invariantVerifier({ id: "i", description: "d", check: () => true })).toMatchObject({ replaySafe: true, description: "d", kind: "invariant" });
  });
});
