// Survivors of `pnpm mutate scheduler` in batch-transaction.ts and compensation-plan.ts: the
// resume of each journaled state (recover), attempt deadlines, giving up after the last
// attempt when a reconciliation says the effect did not apply, what a reconciliation keeps,
// the answer without a reconciler, which actions a failure compensates, running a compensation
// (no scheduler test reached it: the runtime's did) and the refusal of an illegal transition.
import { sequentialIdSource, steppingClock, type ActionRecord, type ActionState, type SideEffectClass, type AnyToolDeclaration } from "@yoke/protocol";
import { transitionAction } from "@yoke/protocol/journal-utils";
import { describe, expect, it } from "vitest";
import { declaration } from "./__fixtures__/tools.js";
import { BatchTransaction, type Settlement } from "./batch-transaction.js";
import { compensationPlan } from "./compensation-plan.js";

const NOW = 5_000;
const clock = steppingClock(NOW, 0);

function record(state: ActionState, overrides: Partial<ActionRecord> = {}): ActionRecord {
  return {
    actionId: "action_1",
    turnId: "turn_1",
    toolCallId: "call_1",
    toolName: "t",
    input: {},
    sideEffect: "irreversible",
    status: { state, attempt: state === "proposed" || state === "validated" || state === "authorized" ? 0 : 1, retryable: false },
    attemptId: state === "proposed" || state === "validated" || state === "authorized" ? undefined : "attempt_1",
    receipt: undefined,
    committedSeq: undefined,
    ...overrides,
  };
}

async function recover(state: ActionState, tool: AnyToolDeclaration, options: { signal?: AbortSignal; overrides?: Partial<ActionRecord> } = {}) {
  const found = record(state, options.overrides);
  const batch = new BatchTransaction({ clock, ids: sequentialIdSource(50), records: [found], signal: options.signal });
  const settlement = await batch.recover(found, tool, { value: 1 });
  return { settlement, drafts: batch.drain() };
}

const retryItem = (settlement: Settlement) => (settlement as Extract<Settlement, { kind: "retry" }>).item;

describe("BatchTransaction.recover: a resume goes on from each journaled state", () => {
  const tool = declaration({ name: "t", sideEffect: "irreversible", timeoutMs: 700, reconcile: async () => ({ status: "applied" }) });

  it("before a lease, it stages what is missing up to executing and dispatches attempt 1", async () => {
    const expected: Record<string, string[]> = {
      proposed: ["action.validated", "action.authorized", "action.leased", "action.executing"],
      validated: ["action.authorized", "action.leased", "action.executing"],
      authorized: ["action.leased", "action.executing"],
    };
    for (const [state, types] of Object.entries(expected)) {
      const { settlement, drafts } = await recover(state as ActionState, tool);
      expect(
        drafts.map((draft) => draft.type),
        state,
      ).toEqual(types);
      expect(settlement.kind).toBe("retry");
      expect(retryItem(settlement)).toMatchObject({ actionId: "action_1", attempt: 1, deadlineAt: NOW + 700, input: { value: 1 } });
    }
  });

  it("leased: journals executing for the same attempt, with a deadline from now", async () => {
    const { settlement, drafts } = await recover("leased", tool);
    expect(drafts).toEqual([{ type: "action.executing", at: NOW, causationId: "action_1", data: { actionId: "action_1", attemptId: "attempt_1" } }]);
    expect(retryItem(settlement)).toEqual({ tool, input: { value: 1 }, actionId: "action_1", attemptId: "attempt_1", attempt: 1, deadlineAt: NOW + 700 });
  });

  it("leased, with the run cancelled: the attempt fails for good under its own id, not dispatched", async () => {
    const controller = new AbortController();
    controller.abort("stop");
    const { settlement, drafts } = await recover("leased", tool, { signal: controller.signal });
    expect(settlement).toEqual({ kind: "done" });
    expect(drafts).toHaveLength(1);
    expect(drafts[0]).toMatchObject({
      type: "action.failed",
      data: { actionId: "action_1", attemptId: "attempt_1", dispatched: false, retryable: false, retrying: false },
    });
    expect(drafts[0]!.data).toMatchObject({
      result: {
        status: "error",
        error: { code: "CANCELLED", message: "the run was cancelled before another attempt of this call could start; it did not run" },
      },
    });
  });

  it("authorized, with the run cancelled: the action fails for good with no attempt named (none was leased)", async () => {
    const controller = new AbortController();
    controller.abort("stop");
    const { settlement, drafts } = await recover("authorized", tool, { signal: controller.signal });
    expect(settlement).toEqual({ kind: "done" });
    expect(drafts.map((draft) => draft.type)).toEqual(["action.failed"]);
    expect(Object.keys(drafts[0]!.data).sort()).toEqual(["actionId", "dispatched", "result", "retryable", "retrying"]);
  });

  it("executing: the outcome was lost, so it is uncertain (under its attempt) and reconciled", async () => {
    const { settlement, drafts } = await recover("executing", tool);
    expect(drafts.map((draft) => draft.type)).toEqual(["action.uncertain", "action.reconciled"]);
    expect(drafts[0]!.data).toEqual({
      actionId: "action_1",
      attemptId: "attempt_1",
      reason: "the process stopped after dispatch, before the outcome was journaled",
    });
    expect(settlement).toEqual({ kind: "done" });
  });

  it("uncertain: reconciled without a new uncertain; settled states are left alone", async () => {
    const uncertain = await recover("uncertain", tool);
    expect(uncertain.drafts.map((draft) => draft.type)).toEqual(["action.reconciled"]);
    for (const state of ["committed", "failed", "compensated"] as const) {
      expect(await recover(state, tool), state).toEqual({ settlement: { kind: "done" }, drafts: [] });
    }
  });
});

describe("BatchTransaction: deadlines are now plus the tool's timeout", () => {
  it("for the first attempt and every lease after it", async () => {
    const tool = declaration({ name: "t", sideEffect: "idempotent", timeoutMs: 300 });
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource() });
    const item = batch.admit({ turnId: "turn_1", toolCallId: "c1", tool, input: {}, value: {} });
    expect(item.deadlineAt).toBe(NOW + 300);
    expect(batch.drain()[0]!.data).toMatchObject({ deadlineAt: NOW + 300 });
    const failed = { status: "error" as const, content: [], timing: { startedAt: NOW, endedAt: NOW, durationMs: 0 } };
    const next = retryItem(await batch.settle(item, { kind: "failed", retryable: true, dispatched: true, result: failed }));
    expect(next).toMatchObject({ attempt: 2, deadlineAt: NOW + 300 });
    expect(batch.drain()[1]).toMatchObject({ type: "action.leased", data: { attempt: 2, deadlineAt: NOW + 300 } });
  });
});

describe("BatchTransaction: reconciliation", () => {
  const reconciled = async (tool: AnyToolDeclaration, attempt = 1) => {
    const found = record("uncertain", { status: { state: "uncertain", attempt, retryable: false } });
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource(50), records: [found] });
    const settlement = await batch.recover(found, tool, {});
    return { settlement, drafts: batch.drain() };
  };

  it("not_applied on the last attempt gives up: one final failure, not dispatched, not retryable", async () => {
    const tool = declaration({ name: "pay", sideEffect: "irreversible", maxAttempts: 2, reconcile: async () => ({ status: "not_applied" }) });
    const early = await reconciled(tool, 1);
    expect(early.drafts.map((draft) => draft.type)).toEqual(["action.reconciled", "action.leased", "action.executing"]);
    expect(retryItem(early.settlement).attempt).toBe(2);
    const last = await reconciled(tool, 2);
    expect(last.settlement).toEqual({ kind: "done" });
    expect(last.drafts.map((draft) => draft.type)).toEqual(["action.reconciled", "action.failed"]);
    expect(last.drafts[1]!.data).toMatchObject({ actionId: "action_1", dispatched: false, retryable: false, retrying: false });
    expect(last.drafts[1]!.data).toMatchObject({
      result: { status: "error", error: { code: "TOOL_FAILED", message: "pay did not apply its effect in 2 attempts; not retried" } },
    });
  });

  it("applied: the result says so (or is the reconciler's text), and keeps the reconciler's receipt only when it gives one", async () => {
    const plain = await reconciled(declaration({ name: "pay", sideEffect: "irreversible", reconcile: async () => ({ status: "applied" }) }));
    expect(plain.drafts[0]!.data).toEqual({
      actionId: "action_1",
      verdict: "applied",
      result: {
        status: "ok",
        content: [{ type: "text", text: "the effect of pay was confirmed applied by reconciliation after its outcome was lost" }],
        timing: { startedAt: NOW, endedAt: NOW, durationMs: 0 },
      },
    });
    expect(Object.hasOwn(plain.drafts[0]!.data, "receipt")).toBe(false);
    const told = await reconciled(
      declaration({
        name: "pay",
        sideEffect: "irreversible",
        reconcile: async () => ({ status: "applied", content: "charge ch_1 found", receipt: { id: "ch_1" } }),
      }),
    );
    expect(told.drafts[0]!.data).toMatchObject({ receipt: { id: "ch_1" }, result: { content: [{ type: "text", text: "charge ch_1 found" }] } });
  });

  it("without a reconciler: none and idempotent are retry_safe (leased again); reversible and irreversible are unknown (escalated)", async () => {
    for (const sideEffect of ["none", "idempotent"] as const) {
      const { settlement, drafts } = await reconciled(declaration({ name: "t", sideEffect }));
      expect(drafts[0]!.data, sideEffect).toEqual({ actionId: "action_1", verdict: "retry_safe" });
      expect(settlement.kind).toBe("retry");
    }
    for (const sideEffect of ["reversible", "irreversible"] as const) {
      const { settlement, drafts } = await reconciled(declaration({ name: "t", sideEffect }));
      expect(
        drafts.map((draft) => draft.data),
        sideEffect,
      ).toEqual([{ actionId: "action_1", verdict: "unknown" }]);
      expect(settlement).toEqual({
        kind: "escalate",
        actionId: "action_1",
        reason: `t is ${sideEffect} and has no reconciler: whether action action_1 applied is unknown`,
      });
    }
  });

  it("a reconciler that throws, or answers unknown without a reason, escalates with a reason that says so", async () => {
    const threw = await reconciled(
      declaration({
        name: "pay",
        sideEffect: "irreversible",
        reconcile: async () => {
          throw new Error("ledger offline");
        },
      }),
    );
    expect(threw.settlement).toEqual({ kind: "escalate", actionId: "action_1", reason: "the reconciler of pay failed: ledger offline" });
    const unsure = await reconciled(declaration({ name: "pay", sideEffect: "irreversible", reconcile: async () => ({ status: "unknown" }) }));
    expect(unsure.settlement).toEqual({
      kind: "escalate",
      actionId: "action_1",
      reason: "the reconciler of pay could not tell whether action action_1 applied",
    });
  });
});

describe("compensationPlan: which actions a failure undoes", () => {
  const at = (actionId: string, state: ActionState, sideEffect: SideEffectClass, toolName: string, committedSeq?: number): ActionRecord => ({
    ...record(state),
    actionId,
    sideEffect,
    toolName,
    committedSeq,
  });
  const tools = (name: string) => ({ sideEffect: "reversible" as const, ...(name.startsWith("undoable") ? { compensate: async () => undefined } : {}) });

  it("only a failure of a call with effects triggers it", () => {
    const committed = at("a1", "committed", "reversible", "undoable", 3);
    expect(compensationPlan([committed, at("a2", "failed", "none", "read")], tools)).toEqual([]);
    expect(compensationPlan([committed, at("a2", "failed", "idempotent", "write")], tools)).toEqual(["a1"]);
  });

  it("only committed, reversible actions whose tool declares a compensation are undone", () => {
    const failure = at("f", "failed", "irreversible", "pay");
    const batch = [
      at("a1", "committed", "reversible", "undoable", 3),
      at("a2", "committed", "irreversible", "undoable-but-irreversible", 4),
      at("a3", "committed", "reversible", "no-compensation", 5),
      at("a4", "executing", "reversible", "undoable"),
      at("a5", "failed", "reversible", "undoable"),
      at("a6", "uncertain", "reversible", "undoable"),
      at("a7", "committed", "reversible", "undoable", 9),
    ];
    expect(compensationPlan([...batch, failure], tools)).toEqual(["a7", "a1"]);
  });
});

describe("BatchTransaction.settle", () => {
  it("a commit keeps the tool's receipt, and has none when the tool gave none", async () => {
    const ok = { status: "ok" as const, content: [], timing: { startedAt: NOW, endedAt: NOW, durationMs: 0 } };
    for (const receipt of [{ id: 7 }, undefined]) {
      const batch = new BatchTransaction({ clock, ids: sequentialIdSource() });
      const item = batch.admit({ turnId: "turn_1", toolCallId: "c1", tool: declaration({ name: "t" }), input: {}, value: {} });
      batch.drain();
      await batch.settle(item, { kind: "committed", result: ok, receipt });
      const [committed] = batch.drain();
      expect(Object.hasOwn(committed!.data, "receipt")).toBe(receipt !== undefined);
      if (receipt !== undefined) expect(committed!.data).toMatchObject({ receipt });
    }
  });

  it("a deferred attempt is refused with INTERNAL naming the attempt", async () => {
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource() });
    const item = batch.admit({ turnId: "turn_1", toolCallId: "c1", tool: declaration({ name: "t" }), input: {}, value: {} });
    await expect(batch.settle(item, { kind: "deferred" })).rejects.toMatchObject({
      code: "INTERNAL",
      message: `attempt ${item.attemptId} was deferred, not run: dispatch it again instead of settling it`,
      details: { actionId: item.actionId, attemptId: item.attemptId },
    });
  });
});

describe("BatchTransaction: compensation", () => {
  const compensating = (overrides: Partial<ActionRecord> = {}) => record("compensating", { sideEffect: "reversible", receipt: { id: "ch_1" }, ...overrides });
  const run = async (tool: AnyToolDeclaration, signal = new AbortController().signal) => {
    const found = compensating();
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource(), records: [found] });
    const settlement = await batch.compensate(found, tool, { value: 1 }, signal);
    return { settlement, drafts: batch.drain() };
  };

  it("beginCompensation stages compensating for each action, in the order given, with the reason", () => {
    const batch = new BatchTransaction({
      clock,
      ids: sequentialIdSource(),
      records: [record("committed", { actionId: "a1" }), record("committed", { actionId: "a2" })],
    });
    batch.beginCompensation(["a2", "a1"], "an action of the same batch failed");
    expect(batch.drain()).toEqual(
      ["a2", "a1"].map((actionId) => ({
        type: "action.compensating",
        at: NOW,
        causationId: actionId,
        data: { actionId, reason: "an action of the same batch failed" },
      })),
    );
  });

  it("runs the tool's compensation under <actionId>:compensate with the receipt and the signal, then stages compensated", async () => {
    const calls: unknown[][] = [];
    const signal = new AbortController().signal;
    const tool = declaration({ name: "book", sideEffect: "reversible", compensate: async (...args) => void calls.push(args) });
    const { settlement, drafts } = await run(tool, signal);
    expect(calls).toEqual([[{ value: 1 }, { actionId: "action_1", idempotencyKey: "action_1:compensate", receipt: { id: "ch_1" }, signal }]]);
    expect(settlement).toEqual({ kind: "done" });
    expect(drafts).toEqual([{ type: "action.compensated", at: NOW, causationId: "action_1", data: { actionId: "action_1" } }]);
  });

  it("a compensation that throws, or a tool without one, stages compensation_failed with the message and escalates", async () => {
    const failing = declaration({
      name: "book",
      sideEffect: "reversible",
      compensate: async () => {
        throw new Error("refund refused");
      },
    });
    for (const [tool, message] of [
      [failing, "refund refused"],
      [declaration({ name: "book", sideEffect: "reversible" }), "book has no compensation"],
    ] as const) {
      const { settlement, drafts } = await run(tool);
      expect(drafts, message).toEqual([{ type: "action.compensation_failed", at: NOW, causationId: "action_1", data: { actionId: "action_1", message } }]);
      expect(settlement).toEqual({ kind: "escalate", actionId: "action_1", reason: `the compensation of book (action action_1) failed: ${message}` });
    }
  });
});

describe("BatchTransaction: an illegal transition is refused, never staged", () => {
  it("ACTION_TRANSITION_ILLEGAL names the event, the action and the state machine's reason; nothing is staged", () => {
    const found = record("executing");
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource(), records: [found] });
    const refused = transitionAction(found.status, { type: "action.compensating" });
    if (refused.ok) expect.unreachable("executing -> compensating must be illegal");
    let caught: unknown;
    try {
      batch.beginCompensation(["action_1"], "why");
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: "ACTION_TRANSITION_ILLEGAL",
      message: `refused to journal action.compensating for action_1: ${refused.reason}`,
      details: { actionId: "action_1", type: "action.compensating" },
    });
    expect(batch.drain()).toEqual([]);
  });
});
