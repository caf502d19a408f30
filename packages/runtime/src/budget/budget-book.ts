import {
  newId,
  type BudgetAmounts,
  type BudgetReservation,
  type BudgetSettlement,
  type ChargeAttribution,
  type YokeEvent,
  type YokeEventDraft,
} from "@yoke/protocol";
import { createBudgetLedger, type BudgetLedger } from "@yoke/budget";
import { budgetEntriesOf } from "@yoke/protocol";
import { BudgetCarriers } from "./budget-carriers.js";
import { exhausted, type Exhaustion } from "./budget-steps.js";

export /** A reservation this process knows is open: what it holds and for what. */
interface OpenReservation {
  readonly reservationId: string;
  readonly amounts: BudgetAmounts;
  readonly attribution: ChargeAttribution;
}

/**
 * What a run's budget holds, as this process knows it: the ledger (rebuilt on resume from the
 * journal's reservations and settlements), the open model-call, verifier and tool-attempt
 * reservations, and the wall-time mark (the clock time up to which wall time is charged).
 */
export class BudgetBook extends BudgetCarriers {
  #ledger: BudgetLedger | undefined;
  #budgetId: string | undefined;
  protected wallMark = 0;
  protected modelCall: OpenReservation | undefined;
  protected verifier: OpenReservation | undefined;
  protected readonly attempts = new Map<string, OpenReservation>();

  /** The root reservation (`budget.opened.budgetId`); undefined before the run opened one. */
  get budgetId(): string | undefined {
    return this.#budgetId;
  }

  /** The ledger; undefined for a run journaled without a budget. */
  get ledger(): BudgetLedger | undefined {
    return this.#ledger;
  }

  /** `budget.opened` for a run that starts now, journaled right after `run.started`. */
  open(parent?: { runId: string; actionId: string; reservationId: string }): YokeEventDraft | undefined {
    const budget = this.deps.budget;
    if (budget === undefined) return undefined;
    const budgetId = newId(this.deps.ids, "reservation");
    const draft: YokeEventDraft = {
      type: "budget.opened",
      at: this.deps.clock.now(),
      causationId: null,
      data: {
        budgetId,
        limits: budget.limits,
        ...(budget.pricingRef === undefined ? {} : { pricing: { ...budget.pricingRef } }),
        ...(parent === undefined ? {} : { parent }),
      },
    };
    this.#opened(budgetId, budget.limits, draft.at);
    return draft;
  }

  /** Folds a journaled event (a resume rebuilding the budget): `budget.*`, and the reservations and settlements carried by the work's own events. */
  observe(event: YokeEvent): void {
    if (event.type === "budget.opened") {
      this.#opened(event.data.budgetId, event.data.limits, event.at);
      return;
    }
    const entries = budgetEntriesOf(event);
    if (entries.length === 0) return;
    this.#ledger?.apply(event);
    for (const entry of entries) {
      if (entry.kind === "reserved") {
        const { reservationId, amounts, attribution } = entry.data;
        const open = { reservationId, amounts, attribution };
        if (attribution.kind === "model_call" && attribution.discarded !== true) this.modelCall = open;
        if (attribution.kind === "verifier") this.verifier = open;
        const { kind, attemptId } = attribution;
        if ((kind === "tool_attempt" || kind === "subagent") && attemptId !== undefined) this.attempts.set(attemptId, open);
        continue;
      }
      const { reservationId, charged } = entry.data;
      if (this.modelCall?.reservationId === reservationId) this.modelCall = undefined;
      if (this.verifier?.reservationId === reservationId) this.verifier = undefined;
      for (const [attemptId, open] of this.attempts) if (open.reservationId === reservationId) this.attempts.delete(attemptId);
      if ((charged.wall_time ?? 0) > 0) this.wallMark = event.at;
    }
  }

  #opened(budgetId: string, limits: BudgetAmounts, at: number): void {
    this.#budgetId = budgetId;
    this.#ledger = createBudgetLedger({ budgetId, limits });
    this.wallMark = at;
  }

  protected hold(amounts: BudgetAmounts, attribution: ChargeAttribution, onOpen: (open: OpenReservation) => void, id?: string): BudgetReservation | Exhaustion {
    const reservationId = id ?? newId(this.deps.ids, "reservation");
    const parentId = this.#budgetId!;
    const result = this.#ledger!.reserve({ reservationId, parentId, amounts, attribution });
    if (!result.ok) return exhausted(result);
    onOpen({ reservationId, amounts, attribution });
    // Keys in code-unit order, as canonical JSON writes them.
    return { amounts, attribution, parentId, reservationId };
  }

  protected charge(open: OpenReservation, actual: BudgetAmounts): BudgetSettlement {
    // The work already happened: what it used past its hold is the one in-flight overshoot, recorded as such.
    const data = this.#ledger!.settle(open.reservationId, actual, { overshoot: true });
    if ((data.charged.wall_time ?? 0) > 0) this.wallMark = this.deps.clock.now();
    return data;
  }

  protected elapsed(): number {
    return Math.max(0, this.deps.clock.now() - this.wallMark);
  }
}
