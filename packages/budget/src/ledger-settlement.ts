// Settlement: charging a reservation what it used (at least what its children were charged),
// releasing the rest to its parent, and the `budget.settled` data that records it.
import { DIMENSION_COUNT, GAUGE, dimensionAt, emptyVector, invalid, toAmounts, type Vector } from "./amounts.js";
import { type LedgerTree, type Node, propagate, releasedOf } from "./ledger-tree.js";
import type { SettledData } from "./ledger-types.js";

/** What settling a node charges and releases, in the tree's scratch vectors. */
export interface SettlementPlan {
  readonly charged: number[];
  readonly released: number[];
  readonly before: number[];
  readonly overshoot: boolean;
}

/** What settling `node` with `actual` charges and releases (in the tree's scratch vectors: commit it before the next plan); throws (changing nothing) when it may not. */
export function plan(tree: LedgerTree, node: Node, actual: Vector, overshootAllowed: boolean): SettlementPlan {
  if (node === tree.root) throw invalid(`settle: "${node.id}" is the budget itself, not a reservation`, { reservationId: node.id });
  if (node.charged !== undefined) throw invalid(`settle: reservation "${node.id}" is settled already`, { reservationId: node.id });
  if (node.openChildren > 0) {
    throw invalid(`settle: reservation "${node.id}" has ${node.openChildren} open reservation(s) under it; settle them first`, { reservationId: node.id });
  }
  const { charged, released, before } = tree.scratch;
  let overshoot = false;
  for (let index = 0; index < DIMENSION_COUNT; index++) {
    const held = node.held[index];
    const childCharges = node.committed?.[index] ?? 0;
    before[index] = held ?? childCharges;
    if (GAUGE[index]) {
      charged[index] = 0;
      released[index] = releasedOf(held, 0);
      continue;
    }
    const asked = actual[index] ?? 0;
    // biome-ignore lint/complexity/useMathMinMax: a comparison, not a call (the JIT keeps plan in its mid tier, where Math.max is a call); amounts are validated integers
    const charge = asked > childCharges ? asked : childCharges;
    const base = held ?? childCharges;
    if (charge > base && (node.bounded & (1 << index)) !== 0) {
      if (!overshootAllowed) {
        throw invalid(
          `settle ${node.id}: ${dimensionAt(index)} ${charge} is more than the ${base} held; settle the in-flight overshoot with { overshoot: true }`,
          { reservationId: node.id, dimension: dimensionAt(index), charged: charge, held: base },
        );
      }
      overshoot = true;
    }
    charged[index] = charge;
    released[index] = releasedOf(held, charge);
  }
  return { charged, released, before, overshoot };
}

/** Applies a plan: the node is settled, its parent's figures move by what it was charged less what it held. */
export function commitSettle(node: Node, planned: SettlementPlan): SettledData {
  node.charged = planned.charged.slice();
  node.overshoot = planned.overshoot;
  node.parent!.openChildren--;
  for (let index = 0; index < DIMENSION_COUNT; index++) propagate(node.parent, index, planned.charged[index]! - planned.before[index]!);
  return settledOf(node, planned.charged, planned.released, planned.overshoot);
}

/** A settled node's `budget.settled` data, made again from what it held and was charged (concurrency is charged 0, so it gives back all it held). */
export function settledData(node: Node): SettledData {
  const charged = node.charged!;
  const released: Vector = emptyVector();
  for (let index = 0; index < DIMENSION_COUNT; index++) {
    released[index] = releasedOf(node.held[index], charged[index]!);
  }
  return settledOf(node, charged, released, node.overshoot);
}

/** The `budget.settled` data of charging `charged` and releasing `released` (fresh objects: the caller may keep or change them). */
function settledOf(node: Node, charged: Vector, released: Vector, overshoot: boolean): SettledData {
  // Members in code-unit order (canonical JSON's): journaled without a sorted copy.
  const chargedAmounts = toAmounts(charged, true);
  const releasedAmounts = toAmounts(released, true);
  return overshoot
    ? { charged: chargedAmounts, overshoot: true, released: releasedAmounts, reservationId: node.id }
    : { charged: chargedAmounts, released: releasedAmounts, reservationId: node.id };
}
