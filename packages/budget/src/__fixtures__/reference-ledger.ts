// A reference budget ledger for model-based tests: the semantics written as plainly as
// possible, recomputing every figure from scratch on each call (the real ledger keeps running
// sums). Amounts are plain records; nothing here is shared with the implementation.
import { BUDGET_DIMENSIONS, type BudgetDimension } from "@yoke/protocol";

type Record_ = Partial<Record<BudgetDimension, number>>;

interface RefNode {
  id: string;
  parent: RefNode | undefined;
  amounts: Record_;
  children: RefNode[];
  settled?: { charged: Record_; released: Record_; overshoot: boolean };
}

export type RefReserve =
  | { ok: true; reservationId: string }
  | { ok: false; dimension: BudgetDimension; reservationId: string; limit: number; committed: number; requested: number };
export type RefSettle = { reservationId: string; charged: Record_; released: Record_; overshoot?: true };

export class RefError extends Error {}

function withTokens(amounts: Record_): Record_ {
  const out = { ...amounts };
  if (out.tokens === undefined && (out.input_tokens !== undefined || out.output_tokens !== undefined))
    out.tokens = (out.input_tokens ?? 0) + (out.output_tokens ?? 0);
  return out;
}

function check(amounts: Record_): void {
  for (const value of Object.values(amounts)) if (value === undefined || !Number.isSafeInteger(value) || value < 0) throw new RefError("bad amount");
}

function nonZero(amounts: Record_): Record_ {
  const out: Record_ = {};
  for (const dimension of BUDGET_DIMENSIONS) if ((amounts[dimension] ?? 0) !== 0) out[dimension] = amounts[dimension]!;
  return out;
}

export class ReferenceLedger {
  private readonly nodes = new Map<string, RefNode>();
  private readonly root: RefNode;

  constructor(budgetId: string, limits: Record_) {
    this.root = { id: budgetId, parent: undefined, amounts: { ...limits }, children: [] };
    this.nodes.set(budgetId, this.root);
  }

  /** What a node's subtree counts against its parent in dimension `d`. */
  private contribution(node: RefNode, d: BudgetDimension): number {
    if (node.settled) return node.settled.charged[d] ?? 0;
    if (node.amounts[d] !== undefined) return node.amounts[d];
    return this.used(node, d);
  }

  used(node: RefNode, d: BudgetDimension): number {
    return node.children.reduce((sum, child) => sum + this.contribution(child, d), 0);
  }

  private holder(node: RefNode | undefined, d: BudgetDimension): RefNode | undefined {
    for (let current = node; current; current = current.parent) if (current.amounts[d] !== undefined) return current;
    return undefined;
  }

  reserve(reservationId: string, parentId: string, amounts: Record_): RefReserve {
    check(amounts);
    const parent = this.nodes.get(parentId);
    if (!parent || parent.settled || this.nodes.has(reservationId)) throw new RefError("bad reserve");
    const wanted = withTokens(amounts);
    for (const d of BUDGET_DIMENSIONS) {
      const requested = wanted[d] ?? 0;
      if (requested === 0) continue;
      const holder = this.holder(parent, d);
      if (!holder) continue;
      const committed = this.used(holder, d);
      if (committed + requested > holder.amounts[d]!)
        return { ok: false, dimension: d, reservationId: holder.id, limit: holder.amounts[d]!, committed, requested };
    }
    const node: RefNode = { id: reservationId, parent, amounts: wanted, children: [] };
    parent.children.push(node);
    this.nodes.set(reservationId, node);
    return { ok: true, reservationId };
  }

  settle(reservationId: string, actual: Record_, overshootAllowed: boolean): RefSettle {
    check(actual);
    const node = this.nodes.get(reservationId);
    if (!node || node === this.root || node.settled || node.children.some((child) => !child.settled)) throw new RefError("bad settle");
    const given = withTokens(actual);
    const charged: Record_ = {};
    const released: Record_ = {};
    let overshoot = false;
    for (const d of BUDGET_DIMENSIONS) {
      if (d === "concurrency") {
        released[d] = node.amounts[d] ?? 0;
        continue;
      }
      const fromChildren = this.used(node, d);
      const charge = Math.max(given[d] ?? 0, fromChildren);
      const held = node.amounts[d] ?? fromChildren;
      if (charge > held && this.holder(node, d)) {
        if (!overshootAllowed) throw new RefError("overshoot");
        overshoot = true;
      }
      charged[d] = charge;
      released[d] = node.amounts[d] === undefined ? 0 : Math.max(0, node.amounts[d] - charge);
    }
    node.settled = { charged, released, overshoot };
    const result: RefSettle = { reservationId, charged: nonZero(charged), released: nonZero(released) };
    return overshoot ? { ...result, overshoot: true } : result;
  }

  remaining(reservationId: string): Record_ {
    const node = this.nodes.get(reservationId);
    if (!node) throw new RefError("unknown");
    const out: Record_ = {};
    for (const d of BUDGET_DIMENSIONS) {
      const holder = this.holder(node, d);
      if (holder) out[d] = Math.max(0, holder.amounts[d]! - this.used(holder, d));
    }
    return out;
  }
}
