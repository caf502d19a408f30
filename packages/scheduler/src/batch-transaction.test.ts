import { YokeError, sequentialIdSource, steppingClock, type ActionRecord, type EventData, type SideEffectClass, type AnyToolDeclaration } from "@yoke/protocol";
import { transitionAction } from "@yoke/protocol/journal-utils";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { neverTimers } from "./__fixtures__/manual-timers.js";
import { declaration } from "./__fixtures__/tools.js";
import { transitionInput, type ActionEventDraft } from "./action-book.js";
import { BatchTransaction, type Settlement } from "./batch-transaction.js";
import { compensationPlan, pendingCompensations } from "./compensation-plan.js";
import { executeBatch, type AttemptOutcome, type DispatchItem } from "./execute-batch.js";

const clock = steppingClock(0, 0);

/** Folds journaled action drafts into records, as the run-state fold does (the scheduler's drafts always carry their input). */
function records(journal: readonly ActionEventDraft[]): ActionRecord[] {
  const byId = new Map<string, ActionRecord>();
  journal.forEach((draft, seq) => {
    const current = byId.get(draft.data.actionId);
    const result = transitionAction(current?.status, transitionInput(draft));
    if (!result.ok) throw new YokeError("INTERNAL", `illegal transition journaled: ${result.reason}`);
    if (draft.type === "action.proposed") {
      const data = draft.data as EventData<"action.proposed">;
      byId.set(data.actionId, { ...data, input: data.input!, status: result.status, attemptId: undefined, receipt: undefined, committedSeq: undefined });
      return;
    }
    if (draft.type === "action.admitted") {
      const { turnId, toolCallId, toolName, actionId, input, sideEffect, attemptId } = draft.data as EventData<"action.admitted">;
      const record = { turnId, toolCallId, toolName, actionId, input: input!, sideEffect, attemptId };
      byId.set(actionId, { ...record, status: result.status, receipt: undefined, committedSeq: undefined });
      return;
    }
    const data = draft.data as { attemptId?: string; receipt?: never };
    const committed = result.status.state === "committed" && current?.status.state !== "committed";
    byId.set(draft.data.actionId, {
      ...current!,
      status: result.status,
      ...(draft.type === "action.leased" ? { attemptId: data.attemptId } : {}),
      ...(data.receipt !== undefined ? { receipt: data.receipt } : {}),
      ...(committed ? { committedSeq: seq } : {}),
    });
  });
  return [...byId.values()];
}

describe("BatchTransaction", () => {
  it("admits a call through every state up to executing, then commits it", async () => {
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource() });
    const tool = declaration({ name: "t" });
    const item = batch.admit({ turnId: "turn_1", toolCallId: "c1", tool, input: {}, value: {} });
    const [admitted, ...rest] = batch.drain();
    expect(rest).toEqual([]);
    // One event for proposed → validated → authorized → leased → executing.
    expect(admitted).toMatchObject({ type: "action.admitted", causationId: "turn_1" });
    expect(admitted!.data).toEqual({
      turnId: "turn_1",
      toolCallId: "c1",
      toolName: "t",
      actionId: item.actionId,
      input: {},
      sideEffect: tool.sideEffect,
      decision: "allow",
      rule: "default",
      attemptId: item.attemptId,
      attempt: 1,
      deadlineAt: item.deadlineAt,
    });
    const [outcome] = await executeBatch([item], { clock, timers: neverTimers });
    expect(await batch.settle(item, outcome!)).toEqual({ kind: "done" });
    expect(batch.drain().map((draft) => draft.type)).toEqual(["action.committed"]);
  });

  it("a deferred attempt has nothing to settle: INTERNAL, and nothing is staged", async () => {
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource() });
    const item = batch.admit({ turnId: "turn_1", toolCallId: "c1", tool: declaration({ name: "t" }), input: {}, value: {} });
    batch.drain();
    await expect(batch.settle(item, { kind: "deferred" })).rejects.toMatchObject({ code: "INTERNAL" });
    expect(batch.drain()).toEqual([]);
  });

  it("a retryable failure leases the next attempt in the same drafts, up to maxAttempts", async () => {
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource() });
    const tool = declaration({ name: "t", maxAttempts: 2 });
    let item = batch.admit({ turnId: "turn_1", toolCallId: "c1", tool, input: {}, value: {} });
    batch.drain();
    const failure: AttemptOutcome = {
      kind: "failed",
      retryable: true,
      dispatched: false,
      result: { status: "error", content: [], timing: { startedAt: 0, endedAt: 0, durationMs: 0 } },
    };
    const first = await batch.settle(item, failure);
    expect(first.kind).toBe("retry");
    expect(batch.drain().map((draft) => draft.type)).toEqual(["action.failed", "action.leased", "action.executing"]);
    item = (first as Extract<Settlement, { kind: "retry" }>).item;
    expect(item.attempt).toBe(2);
    expect(await batch.settle(item, failure)).toEqual({ kind: "done" });
    const [last] = batch.drain();
    expect(last?.type === "action.failed" && last.data.retrying).toBe(false);
  });

  it("uncertain is resolved only by reconciliation: applied commits, not_applied leases again, unknown escalates", async () => {
    for (const [answer, expected] of [
      [{ status: "applied", receipt: { id: 1 } }, ["action.uncertain", "action.reconciled"]],
      [{ status: "not_applied" }, ["action.uncertain", "action.reconciled", "action.leased", "action.executing"]],
      [{ status: "unknown" }, ["action.uncertain", "action.reconciled"]],
    ] as const) {
      const batch = new BatchTransaction({ clock, ids: sequentialIdSource() });
      const tool = declaration({ name: "t", sideEffect: "irreversible", reconcile: async () => answer });
      const item = batch.admit({ turnId: "turn_1", toolCallId: "c1", tool, input: {}, value: {} });
      batch.drain();
      const settlement = await batch.settle(item, { kind: "uncertain", reason: "ack lost" });
      expect(batch.drain().map((draft) => draft.type)).toEqual(expected);
      expect(settlement.kind).toBe(answer.status === "applied" ? "done" : answer.status === "not_applied" ? "retry" : "escalate");
    }
  });

  it("once the run's signal aborts, no new attempt is leased: a retry, a reconciled retry and a resume's lease fail as not dispatched", async () => {
    const failure: AttemptOutcome = {
      kind: "failed",
      retryable: true,
      dispatched: true,
      result: { status: "error", content: [], timing: { startedAt: 0, endedAt: 0, durationMs: 0 } },
    };
    const controller = new AbortController();
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource(), signal: controller.signal });
    const tool = declaration({ name: "t", sideEffect: "idempotent", maxAttempts: 3 });
    const first = batch.admit({ turnId: "turn_1", toolCallId: "c1", tool, input: {}, value: {} });
    const second = batch.admit({ turnId: "turn_1", toolCallId: "c2", tool, input: {}, value: {} });
    batch.drain();
    controller.abort("stop");
    expect(await batch.settle(first, failure)).toEqual({ kind: "done" });
    expect(batch.drain().map((draft) => [draft.type, (draft.data as { retrying?: boolean }).retrying])).toEqual([["action.failed", false]]);
    // Uncertain, reconciled retry_safe (idempotent): the new attempt is not leased.
    expect(await batch.settle(second, { kind: "uncertain", reason: "cancelled while it ran" })).toEqual({ kind: "done" });
    const drafts = batch.drain();
    expect(drafts.map((draft) => draft.type)).toEqual(["action.uncertain", "action.reconciled", "action.failed"]);
    expect(drafts[2]!.data).toMatchObject({ dispatched: false, retrying: false, result: { error: { code: "CANCELLED" } } });

    // A resume that finds an attempt leased but not executing does not journal it executing.
    const leased = new BatchTransaction({ clock, ids: sequentialIdSource(100) });
    const item = leased.admit({ turnId: "turn_1", toolCallId: "c3", tool, input: {}, value: {} });
    const journal = [...leased.drain()];
    await leased.settle(item, { ...failure, dispatched: false });
    journal.push(...leased.drain().filter((draft) => draft.type !== "action.executing"));
    const resumed = new BatchTransaction({ clock, ids: sequentialIdSource(200), records: records(journal), signal: controller.signal });
    expect(await resumed.recover(records(journal)[0]!, tool, {})).toEqual({ kind: "done" });
    const recovered = resumed.drain();
    expect(recovered.map((draft) => draft.type)).toEqual(["action.failed"]);
    expect(records([...journal, ...recovered])[0]!.status.state).toBe("failed");
  });

  it("compensates committed reversible actions in reverse order of commit, each once, when an effect fails", () => {
    const record = (actionId: string, state: "committed" | "failed", sideEffect: SideEffectClass, committedSeq?: number): ActionRecord => ({
      actionId,
      turnId: "turn_1",
      toolCallId: actionId,
      toolName: sideEffect,
      input: null,
      sideEffect,
      status: { state, attempt: 1, retryable: false },
      attemptId: undefined,
      receipt: undefined,
      committedSeq,
    });
    const tools = (name: string) => ({ sideEffect: name as SideEffectClass, ...(name === "reversible" ? { compensate: async () => undefined } : {}) });
    const batch = [
      record("a1", "committed", "reversible", 5),
      record("a2", "committed", "irreversible", 6),
      record("a3", "committed", "reversible", 7),
      record("a4", "failed", "irreversible"),
    ];
    expect(compensationPlan(batch, tools)).toEqual(["a3", "a1"]);
    expect(compensationPlan(batch.slice(0, 3), tools)).toEqual([]);
    const compensating = batch.map((entry) => (entry.actionId === "a4" ? entry : { ...entry, status: { ...entry.status, state: "compensating" as const } }));
    expect(pendingCompensations(compensating).map((entry) => entry.actionId)).toEqual(["a3", "a2", "a1"]);
  });
});

type Step = "ok" | "fail_retryable" | "fail_final" | "ack_lost";
interface Spec {
  sideEffect: SideEffectClass;
  reconciler: "none" | "ledger" | "unknown" | "throws";
  steps: Step[];
}

describe("BatchTransaction under faults and crashes (property)", () => {
  it("journals only legal transitions, applies a non-idempotent effect at most once, and never retries an uncertain one blindly", async () => {
    const spec: fc.Arbitrary<Spec> = fc.record({
      sideEffect: fc.constantFrom<SideEffectClass>("none", "idempotent", "reversible", "irreversible"),
      reconciler: fc.constantFrom<Spec["reconciler"]>("none", "ledger", "unknown", "throws"),
      steps: fc.array(fc.constantFrom<Step>("ok", "fail_retryable", "fail_final", "ack_lost"), { minLength: 1, maxLength: 4 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(spec, { minLength: 1, maxLength: 3 }), fc.array(fc.boolean(), { maxLength: 12 }), async (specs, crashes) => {
        const ledger = new Map<string, number>(); // action id -> effects applied
        const journal: ActionEventDraft[] = [];
        const ids = sequentialIdSource();
        const tools = specs.map((entry, index): AnyToolDeclaration => {
          let call = 0;
          return declaration({
            name: `t${index}`,
            sideEffect: entry.sideEffect,
            access: () => ({ reads: [], writes: [`r${index}`] }),
            execute: async (_input, { actionId }) => {
              const step = entry.steps[Math.min(call++, entry.steps.length - 1)]!;
              if (step === "fail_retryable") throw new YokeError("PROVIDER_UNAVAILABLE", "try again");
              if (step === "fail_final") throw new YokeError("TOOL_FAILED", "no");
              ledger.set(actionId, (ledger.get(actionId) ?? 0) + 1);
              if (step === "ack_lost") throw new YokeError("TOOL_OUTCOME_UNKNOWN", "ack lost");
              return "ok";
            },
            ...(entry.reconciler === "none"
              ? {}
              : {
                  reconcile: async (actionId) => {
                    if (entry.reconciler === "throws") throw new YokeError("PROVIDER_UNAVAILABLE", "down");
                    if (entry.reconciler === "unknown") return { status: "unknown" };
                    return ledger.has(actionId) ? { status: "applied" } : { status: "not_applied" };
                  },
                }),
          });
        });
        let crash = 0;
        const crashNow = () => crashes[crash++] === true;

        // Commit 1: admit everything.
        let batch = new BatchTransaction({ clock, ids });
        let items: DispatchItem[] = tools.map((tool, index) => batch.admit({ turnId: "turn_1", toolCallId: `c${index}`, tool, input: {}, value: {} }));
        journal.push(...batch.drain());
        let escalated = false;
        for (let round = 0; round < 20 && !escalated; round++) {
          if (items.length === 0) break;
          const outcomes = await executeBatch(items, { clock, timers: neverTimers });
          if (crashNow()) {
            // The process dies before the outcomes are journaled; a fresh one recovers from the journal.
            batch = new BatchTransaction({ clock, ids, records: records(journal) });
            const next: DispatchItem[] = [];
            for (const record of records(journal)) {
              const settlement = await batch.recover(record, tools[Number(record.toolName.slice(1))]!, {});
              if (settlement.kind === "retry") next.push(settlement.item);
              if (settlement.kind === "escalate") escalated = true;
            }
            journal.push(...batch.drain());
            items = next;
            continue;
          }
          const next: DispatchItem[] = [];
          for (const [position, item] of items.entries()) {
            const settlement = await batch.settle(item, outcomes[position]!);
            if (settlement.kind === "retry") next.push(settlement.item);
            if (settlement.kind === "escalate") escalated = true;
          }
          journal.push(...batch.drain());
          items = next;
        }
        const final = records(journal); // throws on any illegal transition
        for (const [index, record] of final.entries()) {
          const applied = ledger.get(record.actionId) ?? 0;
          if (specs[index]!.sideEffect === "reversible" || specs[index]!.sideEffect === "irreversible") expect(applied).toBeLessThanOrEqual(1);
          if (record.status.state === "committed" && specs[index]!.sideEffect !== "none") expect(applied).toBeGreaterThanOrEqual(1);
          if (!escalated) expect(["committed", "failed"]).toContain(record.status.state);
        }
        // Every uncertain action was reconciled (or the batch escalated): nothing was retried without a verdict.
        const uncertain = journal.filter((draft) => draft.type === "action.uncertain").length;
        const reconciled = journal.filter((draft) => draft.type === "action.reconciled").length;
        expect(reconciled).toBe(uncertain);
      }),
      { numRuns: process.env.YOKE_SOAK === "1" ? 5_000 : 300 },
    );
  });
});
