import {
  compactReservation,
  compactSettlement,
  type BudgetAmounts,
  type BudgetReservation,
  type BudgetSettlement,
  type CarriedReservation,
  type CarriedSettlement,
  type ChargeAttribution,
  type Clock,
  type IdSource,
  type ProviderAdapterV1,
  type ReservationCarrier,
  type YokeEventDraft,
} from "@yoke/protocol";
import type { ResolvedBudget } from "./budget-options.js";
import { carries } from "./budget-steps.js";

/** What a run's budget needs of the harness (a subset of its resolved options). */
export interface BudgetDeps {
  readonly budget: ResolvedBudget | undefined;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly provider: Pick<ProviderAdapterV1, "provider" | "modelId">;
  readonly modelCallTimeoutMs: number;
  readonly modelRetries: number;
  readonly subagents?: { readonly budget: BudgetAmounts; readonly charges: Map<string, BudgetAmounts> } | undefined;
}

/**
 * How a run's budget steps are journaled: on the event that starts or ends the work they are
 * for (0016), else as `budget.reserved` / `budget.settled` events of their own.
 */
export class BudgetCarriers {
  protected readonly deps: BudgetDeps;
  protected readonly runId: string;

  constructor(deps: BudgetDeps, runId: string) {
    this.deps = deps;
    this.runId = runId;
  }

  /**
   * Puts a budget step on the draft of `drafts` that starts (`reserved`) or ends (`settled`)
   * the work it is for, or, when none of them does (a spawn's reservation, which the child's
   * `budget.opened.parent` names), appends it as `budget.reserved` / `budget.settled`. Returns
   * the drafts with the step on them (a new array: the caller's is left as it was); use it
   * before the drafts are added to their turn.
   */
  carry(drafts: readonly YokeEventDraft[], entry: BudgetStep, attribution?: ChargeAttribution): YokeEventDraft[] {
    const work = entry.kind === "reserved" ? entry.data.attribution : attribution;
    const index = work === undefined || work.kind === "subagent" ? -1 : drafts.findIndex((draft) => carries(draft, entry.kind, work));
    if (index === -1) return [...drafts, entry.kind === "reserved" ? this.reservedDraft(entry.data) : this.settledDraft(entry.data, work)];
    const draft = drafts[index]!;
    const carried =
      entry.kind === "reserved"
        ? this.carriedReservation(entry.data, draft.type as ReservationCarrier, draft.data as CarrierIds)
        : compactSettlement(entry.data);
    const result = drafts.slice();
    result[index] = { ...draft, data: { ...draft.data, [entry.kind]: carried } } as YokeEventDraft;
    return result;
  }

  /**
   * `reserved` as the event of `type` that starts its work (with `carrier`'s ids) journals it:
   * the attribution without the ids the event holds, none when only the kind `type` implies is
   * left (`compactReservation`; `budgetEntriesOf` gives them back). Fewer bytes a step: a
   * reservation rides on every model call and dispatch.
   */
  carriedReservation(reserved: BudgetReservation, type: ReservationCarrier, carrier: CarrierIds): CarriedReservation {
    return compactReservation(reserved, { type, runId: this.runId, data: carrier });
  }

  /** `settled` as the event that ends its work journals it: without `released` (held less charged; the ledger works it out). */
  carriedSettlement(settled: BudgetSettlement): CarriedSettlement {
    return compactSettlement(settled);
  }

  /** A reservation as its own `budget.reserved` event. */
  reservedDraft(data: BudgetReservation): YokeEventDraft {
    return { type: "budget.reserved", at: this.deps.clock.now(), causationId: data.attribution.attemptId ?? data.attribution.turnId ?? null, data };
  }

  /** A settlement as its own `budget.settled` event. */
  settledDraft(data: BudgetSettlement, attribution?: ChargeAttribution): YokeEventDraft {
    return { type: "budget.settled", at: this.deps.clock.now(), causationId: attribution?.attemptId ?? attribution?.turnId ?? null, data };
  }
}

/** A budget step as this process makes it, whole (journaled in the carried form on its work's event). */
export type BudgetStep = { readonly kind: "reserved"; readonly data: BudgetReservation } | { readonly kind: "settled"; readonly data: BudgetSettlement };

/** The ids an event that carries a budget step may hold for its attribution. */
type CarrierIds = { readonly turnId?: string; readonly actionId?: string; readonly attemptId?: string; readonly verifierRunId?: string };

/** A settlement to journal, with the attribution of the work it ends (`RunBudget.carry` finds its event by it). */
export interface SettledWork {
  readonly entry: Extract<BudgetStep, { kind: "settled" }>;
  readonly attribution: ChargeAttribution;
}
