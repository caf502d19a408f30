import { GENESIS_HASH, type YokeEvent } from "@yoke/protocol";
import type { BudgetLedger, ReserveRequest } from "../index.js";

/** Wraps event data in a stored event envelope (the budget fold and report read type, runId and data). */
export function eventsOf(runId: string, drafts: readonly { type: string; data: object }[], firstSeq = 0): YokeEvent[] {
  return drafts.map(
    (draft, index) =>
      ({
        schemaVersion: 1,
        tenantId: "t",
        runId,
        seq: firstSeq + index,
        at: 0,
        causationId: null,
        prevHash: GENESIS_HASH,
        hash: GENESIS_HASH,
        type: draft.type,
        data: draft.data,
      }) as unknown as YokeEvent,
  );
}

/** A ledger that records the events a writer would journal: what the runtime does around it. */
export function recorder(runId: string, ledger: BudgetLedger, opened: object = ledger.opened()) {
  const drafts: { type: string; data: object }[] = [
    { type: "run.started", data: {} },
    { type: "budget.opened", data: opened },
  ];
  return {
    ledger,
    reserve(request: ReserveRequest) {
      const result = ledger.reserve(request);
      if (result.ok) drafts.push({ type: "budget.reserved", data: request });
      return result;
    },
    settle(reservationId: string, actual: Parameters<BudgetLedger["settle"]>[1], options?: { overshoot?: boolean }) {
      const data = ledger.settle(reservationId, actual, options);
      drafts.push({ type: "budget.settled", data });
      return data;
    },
    release(reservationId: string) {
      const data = ledger.release(reservationId);
      drafts.push({ type: "budget.settled", data });
      return data;
    },
    push(type: string, data: object) {
      drafts.push({ type, data });
    },
    events: () => eventsOf(runId, drafts),
  };
}
