import { describe, expect, it } from "vitest";
import { transitionAction, type ActionStatus } from "./actions.js";

const at = (state: ActionStatus["state"], attempt = 1, retryable = false): ActionStatus => ({ state, attempt, retryable });

describe("transitionAction", () => {
  it("walks the happy path and refuses skipping a state", () => {
    let status: ActionStatus | undefined;
    for (const input of [
      { type: "action.proposed" },
      { type: "action.validated" },
      { type: "action.authorized" },
      { type: "action.leased", attempt: 1 },
      { type: "action.executing" },
      { type: "action.committed" },
    ] as const) {
      const result = transitionAction(status, input);
      expect(result.ok).toBe(true);
      if (result.ok) status = result.status;
    }
    expect(status).toEqual(at("committed"));
    expect(transitionAction(at("authorized", 0), { type: "action.executing" })).toEqual({
      ok: false,
      reason: "action.executing is not legal in state authorized",
    });
  });

  it("leaves uncertain only through reconciliation", () => {
    expect(transitionAction(at("uncertain"), { type: "action.leased", attempt: 2 }).ok).toBe(false);
    expect(transitionAction(at("uncertain"), { type: "action.committed" }).ok).toBe(false);
    expect(transitionAction(at("uncertain"), { type: "action.reconciled", verdict: "applied" })).toEqual({ ok: true, status: at("committed") });
    expect(transitionAction(at("uncertain"), { type: "action.reconciled", verdict: "not_applied" })).toEqual({ ok: true, status: at("authorized") });
    expect(transitionAction(at("uncertain"), { type: "action.reconciled", verdict: "unknown" })).toEqual({ ok: true, status: at("uncertain") });
  });

  it("retries a failure only when it is retryable, with the next attempt number", () => {
    expect(transitionAction(at("failed", 1, true), { type: "action.leased", attempt: 2 }).ok).toBe(true);
    expect(transitionAction(at("failed", 1, true), { type: "action.leased", attempt: 3 }).ok).toBe(false);
    expect(transitionAction(at("failed", 1, false), { type: "action.leased", attempt: 2 }).ok).toBe(false);
    expect(transitionAction(at("compensated"), { type: "action.compensating" }).ok).toBe(false);
  });
});
