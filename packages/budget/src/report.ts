import { BUDGET_DIMENSIONS, type BudgetDimension, type ChargeAttribution, type OutcomeStatus, type YokeEvent } from "@yoke/protocol";
import { type Amounts, DIMENSION_COUNT, GAUGE, toVector, type Vector, zeros } from "./amounts.js";
import { foldBudget } from "./fold.js";
import type { OpenedData, ReservationView } from "./ledger-types.js";

/** One dimension of a budget: its limit (null = unbounded), what was charged, what is still held, and what is left. */
export interface DimensionRow {
  readonly dimension: BudgetDimension;
  readonly limit: number | null;
  readonly charged: number;
  /** Reserved by work still in flight (not yet settled), beyond what its children were charged. */
  readonly held: number;
  /** `limit - charged - held`, at least 0; null when unbounded. */
  readonly remaining: number | null;
}

/** Charges of one kind of work (or of discarded work): how many reservations and what they were charged. */
export interface ChargeGroup {
  readonly count: number;
  readonly charged: Amounts;
}

/** A reservation settled for more than it held (the in-flight overshoot a halt allows). */
export interface OvershootRow {
  readonly runId: string;
  readonly reservationId: string;
  readonly kind: ChargeAttribution["kind"];
  /** What it was charged beyond what it held, per dimension. */
  readonly excess: Amounts;
}

/** One run of the report, with the child runs linked under it counted in its figures. */
export interface RunRow {
  readonly runId: string;
  readonly budgetId: string | null;
  readonly parent: { readonly runId: string; readonly actionId: string; readonly reservationId: string } | null;
  readonly outcome: OutcomeStatus | null;
  readonly currency: string | null;
  readonly dimensions: readonly DimensionRow[];
}

/** What a budget report holds: every figure comes from journal events alone. */
export interface BudgetReport {
  /** Runs that are not a child of another run in the report: the tasks. */
  readonly tasks: number;
  /** Tasks whose run completed `verified_success`. */
  readonly verifiedSuccesses: number;
  /** The pricing currency of the runs (null without pricing, or when the runs disagree). */
  readonly currency: string | null;
  /** Spend charged over every run (micro-units of `currency`). */
  readonly spend: number;
  /** The headline: spend per verified success, rounded up (null when none succeeded verifiably). */
  readonly costPerVerifiedSuccess: number | null;
  /** Tokens charged per verified success, rounded up (null when none). */
  readonly tokensPerVerifiedSuccess: number | null;
  /** Totals over the tasks (a dimension's limit is the sum of theirs, null when any task leaves it unbounded). */
  readonly dimensions: readonly DimensionRow[];
  /** Charged per attribution kind (each charge counted once: a parent's share excludes its children's). */
  readonly byKind: Readonly<Partial<Record<ChargeAttribution["kind"], ChargeGroup>>>;
  /** Work that was charged and thrown away (retried calls, retried attempts). */
  readonly discarded: ChargeGroup;
  readonly overshoots: readonly OvershootRow[];
  readonly runs: readonly RunRow[];
}

interface RunData {
  readonly runId: string;
  readonly opened: OpenedData | undefined;
  readonly reservations: readonly ReservationView[];
  readonly committed: readonly number[];
  readonly outcome: OutcomeStatus | null;
}

interface Totals {
  charged: number[];
  held: number[];
  limits: Vector;
  byKind: Map<ChargeAttribution["kind"], { count: number; charged: number[] }>;
  discarded: { count: number; charged: number[] };
  overshoots: OvershootRow[];
}

const vectorOf = (amounts: Amounts | undefined): number[] => toVector(amounts ?? {}, "report", false).map((value) => value ?? 0);
const add = (into: number[], from: readonly number[], sign = 1): void => {
  for (let index = 0; index < DIMENSION_COUNT; index++) into[index]! += sign * from[index]!;
};
const amountsOf = (vector: readonly number[]): Amounts => {
  const out: Record<string, number> = {};
  for (let index = 0; index < DIMENSION_COUNT; index++) if (vector[index] !== 0) out[BUDGET_DIMENSIONS[index]!] = vector[index]!;
  return out as Amounts;
};

/**
 * Rebuilds a budget report from journal events alone: one run's events, or many runs' (each
 * an array; events of several runs in one array are grouped by `runId`). A child run whose
 * `budget.opened.parent` names a reservation of another run in the report is counted under
 * it, in place of that reservation's hold (or, once settled, its charge, whichever is larger),
 * and its charges are itemized by their own kinds. The headline is spend per verified success.
 * A journal whose budget events contradict each other throws BUDGET_INVALID.
 *
 * @example
 * ```ts
 * const report = budgetReport(await journal.read(scope));
 * console.log(formatBudgetReport(report));
 * ```
 */
export function budgetReport(input: readonly YokeEvent[] | readonly (readonly YokeEvent[])[]): BudgetReport {
  const byRun = new Map<string, YokeEvent[]>();
  for (const item of input) {
    for (const event of Array.isArray(item) ? (item as readonly YokeEvent[]) : [item as YokeEvent]) {
      let list = byRun.get(event.runId);
      if (list === undefined) byRun.set(event.runId, (list = []));
      list.push(event);
    }
  }
  const runs = new Map<string, RunData>();
  for (const [runId, events] of byRun) {
    const ledger = foldBudget(events);
    let opened: OpenedData | undefined;
    let outcome: OutcomeStatus | null = null;
    for (const event of events) {
      if (event.type === "budget.opened" && opened === undefined) opened = event.data;
      if (event.type === "run.completed") outcome = event.data.outcome.status;
    }
    const snapshot = ledger?.snapshot();
    runs.set(runId, {
      runId,
      opened,
      reservations: snapshot?.reservations ?? [],
      committed: vectorOf(snapshot?.committed),
      outcome,
    });
  }
  // A child run counts under its parent's reservation when both are in the report.
  const childOf = new Map<string, RunData>();
  const isChild = new Set<string>();
  for (const run of runs.values()) {
    const parent = run.opened?.parent;
    if (parent === undefined || !runs.has(parent.runId)) continue;
    const key = `${parent.runId}\u0000${parent.reservationId}`;
    if (!runs.get(parent.runId)!.reservations.some((view) => view.reservationId === parent.reservationId) || childOf.has(key)) continue;
    childOf.set(key, run);
    isChild.add(run.runId);
  }

  const memo = new Map<string, Totals>();
  const totalsOf = (run: RunData, path: Set<string>): Totals => {
    const known = memo.get(run.runId);
    if (known !== undefined) return known;
    const totals: Totals = {
      charged: zeros(),
      held: zeros(),
      limits: toVector(run.opened?.limits ?? {}, "report", false),
      byKind: new Map(),
      discarded: { count: 0, charged: zeros() },
      overshoots: [],
    };
    const ledgerCharged = zeros();
    const childCharges = new Map<string, number[]>();
    for (const view of run.reservations) {
      if (view.status !== "settled") continue;
      const sum = childCharges.get(view.parentId) ?? zeros();
      add(sum, vectorOf(view.charged));
      childCharges.set(view.parentId, sum);
    }
    const charge = (kind: ChargeAttribution["kind"], discarded: boolean, vector: readonly number[], count: number): void => {
      add(totals.charged, vector);
      let group = totals.byKind.get(kind);
      if (group === undefined) totals.byKind.set(kind, (group = { count: 0, charged: zeros() }));
      group.count += count;
      add(group.charged, vector);
      if (discarded) {
        totals.discarded.count += count;
        add(totals.discarded.charged, vector);
      }
    };
    const merge = (child: Totals): void => {
      for (const [kind, group] of child.byKind) {
        let into = totals.byKind.get(kind);
        if (into === undefined) totals.byKind.set(kind, (into = { count: 0, charged: zeros() }));
        into.count += group.count;
        add(into.charged, group.charged);
      }
      totals.discarded.count += child.discarded.count;
      add(totals.discarded.charged, child.discarded.charged);
      totals.overshoots.push(...child.overshoots);
      add(totals.charged, child.charged);
    };
    for (const view of run.reservations) {
      const linked = childOf.get(`${run.runId}\u0000${view.reservationId}`);
      const child = linked !== undefined && !path.has(linked.runId) ? totalsOf(linked, new Set([...path, run.runId])) : undefined;
      if (view.status === "open") {
        if (child !== undefined) {
          merge(child);
          // The child's charges came out of this reservation's hold.
          add(totals.held, child.charged, -1);
        }
        continue;
      }
      const charged = vectorOf(view.charged);
      const exclusive = charged.map((value, index) => Math.max(0, value - (childCharges.get(view.reservationId)?.[index] ?? 0)));
      // Σ exclusive over a settled subtree is its top's charge: what the ledger's root counts.
      add(ledgerCharged, exclusive);
      if (child !== undefined) {
        merge(child);
        charge(
          view.attribution.kind,
          view.attribution.discarded === true,
          exclusive.map((value, index) => Math.max(0, value - child.charged[index]!)),
          1,
        );
      } else {
        charge(view.attribution.kind, view.attribution.discarded === true, exclusive, 1);
      }
      if (view.overshoot === true) {
        const held = vectorOf(view.amounts);
        const excess = charged.map((value, index) =>
          GAUGE[index] || view.amounts[BUDGET_DIMENSIONS[index]!] === undefined ? 0 : Math.max(0, value - held[index]!),
        );
        totals.overshoots.push({ runId: run.runId, reservationId: view.reservationId, kind: view.attribution.kind, excess: amountsOf(excess) });
      }
    }
    // Held = what the ledger has committed at its root beyond what was charged.
    const held = run.committed.map((value, index) => value - ledgerCharged[index]!);
    add(totals.held, held);
    for (let index = 0; index < DIMENSION_COUNT; index++) totals.held[index] = Math.max(0, totals.held[index]!);
    memo.set(run.runId, totals);
    return totals;
  };

  const rows = (limits: Vector, charged: readonly number[], held: readonly number[]): DimensionRow[] =>
    BUDGET_DIMENSIONS.flatMap((dimension, index) => {
      const limit = limits[index] ?? null;
      if (limit === null && charged[index] === 0 && held[index] === 0) return [];
      const remaining = limit === null ? null : Math.max(0, limit - charged[index]! - held[index]!);
      return [{ dimension, limit, charged: charged[index]!, held: held[index]!, remaining }];
    });

  const runRows: RunRow[] = [];
  const tasks = [...runs.values()].filter((run) => !isChild.has(run.runId));
  const total: Totals = { charged: zeros(), held: zeros(), limits: [], byKind: new Map(), discarded: { count: 0, charged: zeros() }, overshoots: [] };
  const limits: Vector = new Array(DIMENSION_COUNT).fill(0);
  for (const run of runs.values()) {
    const totals = totalsOf(run, new Set());
    runRows.push({
      runId: run.runId,
      budgetId: run.opened?.budgetId ?? null,
      parent: run.opened?.parent ?? null,
      outcome: run.outcome,
      currency: run.opened?.pricing?.currency ?? null,
      dimensions: rows(totals.limits, totals.charged, totals.held),
    });
  }
  for (const task of tasks) {
    const totals = totalsOf(task, new Set());
    add(total.held, totals.held);
    for (let index = 0; index < DIMENSION_COUNT; index++)
      limits[index] = totals.limits[index] === undefined ? undefined : (limits[index] ?? 0) + totals.limits[index]!;
    // merge() semantics without a parent: sum everything.
    add(total.charged, totals.charged);
    for (const [kind, group] of totals.byKind) {
      let into = total.byKind.get(kind);
      if (into === undefined) total.byKind.set(kind, (into = { count: 0, charged: zeros() }));
      into.count += group.count;
      add(into.charged, group.charged);
    }
    total.discarded.count += totals.discarded.count;
    add(total.discarded.charged, totals.discarded.charged);
    total.overshoots.push(...totals.overshoots);
  }
  if (tasks.length === 0) limits.fill(undefined);
  const currencies = new Set([...runs.values()].flatMap((run) => (run.opened?.pricing === undefined ? [] : [run.opened.pricing.currency])));
  const verifiedSuccesses = tasks.filter((run) => run.outcome === "verified_success").length;
  const spend = total.charged[BUDGET_DIMENSIONS.indexOf("spend")]!;
  const tokens = total.charged[BUDGET_DIMENSIONS.indexOf("tokens")]!;
  const byKind: Partial<Record<ChargeAttribution["kind"], ChargeGroup>> = {};
  for (const [kind, group] of [...total.byKind].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    byKind[kind] = { count: group.count, charged: amountsOf(group.charged) };
  return {
    tasks: tasks.length,
    verifiedSuccesses,
    currency: currencies.size === 1 ? [...currencies][0]! : null,
    spend,
    costPerVerifiedSuccess: verifiedSuccesses === 0 ? null : Math.ceil(spend / verifiedSuccesses),
    tokensPerVerifiedSuccess: verifiedSuccesses === 0 ? null : Math.ceil(tokens / verifiedSuccesses),
    dimensions: rows(limits, total.charged, total.held),
    byKind,
    discarded: { count: total.discarded.count, charged: amountsOf(total.discarded.charged) },
    overshoots: total.overshoots,
    runs: runRows,
  };
}
