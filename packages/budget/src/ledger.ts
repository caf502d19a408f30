// The budget ledger: one tree of reservations under a budget, and the behaviours that act on
// it, each in a module of its own — admission and reservation (`ledger-admission.ts`),
// settlement (`ledger-settlement.ts`), reporting (`ledger-reporting.ts`) and rebuilding from the
// journal (`ledger-replay.ts`).
import type { BudgetAmounts } from "@yoke/protocol";
import { indexOf, invalid, toAmounts, toVector, zeros } from "./amounts.js";
import { admit, reserve } from "./ledger-admission.js";
import { applyEvent } from "./ledger-replay.js";
import { committedOf, remaining, roomOf, snapshot, view } from "./ledger-reporting.js";
import { commitSettle, plan } from "./ledger-settlement.js";
import { newTree, nodeOf, reservationsOf } from "./ledger-tree.js";
import type { BudgetLedger, OpenedData } from "./ledger-types.js";

/** Options of `createBudgetLedger`: the budget's id (its root reservation) and its limits (a dimension left out is unbounded). */
export interface BudgetLedgerOptions {
  budgetId: string;
  limits: BudgetAmounts;
}

/**
 * Creates a hierarchical budget ledger: the budget `budgetId` with `limits` at its root.
 *
 * Semantics: a reservation holds the dimensions it names out of its parent; a dimension it
 * does not name passes through it to the nearest ancestor that names one (so a reservation
 * that does not fit is refused by the nearest binding ancestor, named in the result).
 * `settle(actual)` charges `actual` (at least what its children were charged) and releases the
 * rest; charging more than held in a bounded dimension needs `{ overshoot: true }` and is
 * recorded. `concurrency` is a gauge: held while open, never charged. `tokens` left out of an
 * amount with input/output tokens in it is their sum. Ids, amounts, a closed parent, a double
 * settle or settling over open children: YokeError BUDGET_INVALID. No clock, no randomness.
 *
 * @example
 * ```ts
 * const ledger = createBudgetLedger({ budgetId: "b", limits: { spend: 1_000_000, concurrency: 2 } });
 * ledger.reserve({ reservationId: "call-1", parentId: "b", amounts: { spend: 600_000, concurrency: 1 }, attribution: { kind: "model_call", runId: "r" } });
 * ledger.reserve({ reservationId: "call-2", parentId: "b", amounts: { spend: 600_000 }, attribution: { kind: "model_call", runId: "r" } });
 * // { ok: false, dimension: "spend", reservationId: "b", limit: 1000000, committed: 600000, requested: 600000 }
 * ```
 */
export function createBudgetLedger(options: BudgetLedgerOptions): BudgetLedger {
  if (typeof options.budgetId !== "string" || options.budgetId === "") throw invalid("budgetId must be a non-empty string");
  const limitsVector = toVector(options.limits, "limits", false);
  const budgetId = options.budgetId;
  const limits = toAmounts(limitsVector);
  const tree = newTree(budgetId, limitsVector, limits);

  return {
    specificationVersion: "v1",
    budgetId,
    limits,
    check: (request) => {
      const { refusal } = admit(tree, request);
      return refusal ?? { ok: true, reservationId: request.reservationId };
    },
    reserve: (request) => reserve(tree, request),
    settle: (reservationId, actual, settleOptions = {}) => {
      const node = nodeOf(tree, reservationId, "settle");
      return commitSettle(node, plan(tree, node, toVector(actual, `settle ${reservationId}`, true), settleOptions.overshoot === true));
    },
    release: (reservationId) => {
      const node = nodeOf(tree, reservationId, "release");
      return commitSettle(node, plan(tree, node, zeros(), false));
    },
    remaining: (reservationId) => remaining(nodeOf(tree, reservationId, "remaining")),
    remainingOf: (reservationId, dimension) => {
      const node = nodeOf(tree, reservationId, "remainingOf");
      const index = indexOf(dimension);
      if (index === -1) throw invalid(`remainingOf: unknown budget dimension "${String(dimension)}"`, { dimension });
      return roomOf(node, index);
    },
    committed: (reservationId) => committedOf(nodeOf(tree, reservationId, "committed")),
    apply: (event) => applyEvent(tree, event),
    opened: (extra = {}): OpenedData => ({ budgetId, limits, ...extra }),
    reservation: (reservationId) => {
      const node = tree.nodes.get(reservationId);
      return node === undefined || node === tree.root ? undefined : view(node);
    },
    openReservations: () =>
      reservationsOf(tree)
        .filter((node) => node.charged === undefined)
        .map(view),
    snapshot: () => snapshot(tree),
  };
}
