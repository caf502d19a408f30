// Reporting: what a reservation holds, what is left under it and what its subtree has
// committed, each reservation as a view, and the whole ledger as a snapshot.
import { type Amounts, DIMENSION_COUNT, emptyVector, toAmounts, zeros } from "./amounts.js";
import { holderOf, type LedgerTree, type Node, reservationsOf } from "./ledger-tree.js";
import { settledData } from "./ledger-settlement.js";
import type { BudgetSnapshot, ReservationView } from "./ledger-types.js";

export function amountsOf(node: Node): Amounts {
  node.amounts ??= Object.freeze(toAmounts(node.held));
  return node.amounts;
}

export function view(node: Node): ReservationView {
  const base = { reservationId: node.id, parentId: node.parent!.id, amounts: amountsOf(node), attribution: { ...node.attribution! } };
  if (node.charged === undefined) return { ...base, status: "open" };
  const data = settledData(node);
  return { ...base, status: "settled", charged: data.charged, released: data.released, ...(data.overshoot ? { overshoot: true } : {}) };
}

/** What is left in dimension `index` for a reservation under `node`: undefined when nothing up the tree names it. */
export function roomOf(node: Node, index: number): number | undefined {
  const holder = holderOf(node, index);
  return holder === undefined ? undefined : Math.max(0, holder.held[index]! - (holder.committed?.[index] ?? 0));
}

export function remaining(node: Node): Amounts {
  const room = emptyVector();
  for (let index = 0; index < DIMENSION_COUNT; index++) room[index] = roomOf(node, index);
  return toAmounts(room);
}

/** Held plus charged under `node`, per dimension it or a reservation under it named. */
export function committedOf(node: Node): Amounts {
  return toAmounts((node.committed ?? zeros()).map((value, index) => (value === 0 && node.held[index] === undefined ? undefined : value)));
}

export function snapshot(tree: LedgerTree): BudgetSnapshot {
  return { budgetId: tree.budgetId, limits: tree.limits, committed: committedOf(tree.root), reservations: reservationsOf(tree).map(view) };
}
