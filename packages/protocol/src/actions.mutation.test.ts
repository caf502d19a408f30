// Survivors of `pnpm mutate protocol` in actions.ts. :119 `state === "failed"` as `true` left
// only the retry flag deciding a lease: the table test cannot see it, as the machine never
// gives a state other than failed the flag; a status built by hand with it must not lease.
// :82 isFinalActionState had no test of protocol's own.
import { describe, expect, it } from "vitest";
import { ACTION_STATES, isFinalActionState, transitionAction } from "./actions.js";

describe("transitionAction: only a failed action's retry flag allows another lease", () => {
  it.for(ACTION_STATES.filter((state) => state !== "failed" && state !== "authorized"))("%s with retryable set may not lease", (state) => {
    expect(transitionAction({ state, attempt: 1, retryable: true }, { type: "action.leased", attempt: 2 })).toEqual({
      ok: false,
      reason: `action.leased is not legal in state ${state}`,
    });
  });

  it("failed with the flag leases; authorized leases whatever the flag", () => {
    expect(transitionAction({ state: "failed", attempt: 1, retryable: true }, { type: "action.leased", attempt: 2 })).toMatchObject({ ok: true });
    expect(transitionAction({ state: "authorized", attempt: 1, retryable: true }, { type: "action.leased", attempt: 2 })).toMatchObject({ ok: true });
  });
});

describe("isFinalActionState", () => {
  it("is true for committed, compensated, compensation_failed and failed, and for no other state", () => {
    expect(ACTION_STATES.filter(isFinalActionState).sort()).toEqual(["committed", "compensated", "compensation_failed", "failed"]);
  });
});
