// The ledger's tree of reservations under the budget: its nodes and the arithmetic every
// behaviour shares (who holds a dimension, and carrying a change up to it).
import type { ChargeAttribution } from "@yoke/protocol";
import { type Amounts, DIMENSION_COUNT, invalid, type Vector, zeros } from "./amounts.js";

export interface Node {
  readonly id: string;
  readonly parent: Node | undefined;
  /** What it holds per dimension; undefined = transparent (its children hold from the nearest ancestor that names it). */
  readonly held: Vector;
  /** Bit per dimension: it or an ancestor names it, so charging past what is held is an overshoot. */
  readonly bounded: number;
  /** Σ of the children's contributions: held while open (or, where transparent, their own committed), charged once settled. Allocated with the first child. */
  committed: number[] | undefined;
  /** `held` as amounts, made the first time a view asks (most reservations are never viewed). */
  amounts: Amounts | undefined;
  readonly attribution: ChargeAttribution | undefined;
  openChildren: number;
  /** Once settled: what it was charged per dimension (what it released is worked out from `held`). Kept as one vector: a run keeps every settled reservation. */
  charged: number[] | undefined;
  overshoot: boolean;
}

/** One ledger's state: the budget at the root, and every reservation by id (in the order reserved, the root first). */
export interface LedgerTree {
  readonly budgetId: string;
  readonly limits: Amounts;
  readonly root: Node;
  readonly nodes: Map<string, Node>;
  /** The vectors a settlement plan is worked out in: read by the commit that follows it, never kept. */
  readonly scratch: { readonly charged: number[]; readonly released: number[]; readonly before: number[] };
}

export function newTree(budgetId: string, limitsVector: Vector, limits: Amounts): LedgerTree {
  const root: Node = {
    id: budgetId,
    parent: undefined,
    held: limitsVector,
    bounded: maskOf(limitsVector, 0),
    committed: zeros(),
    amounts: limits,
    attribution: undefined,
    openChildren: 0,
    charged: undefined,
    // Read only of a settled reservation, which the root never is.
    overshoot: false,
  };
  return { budgetId, limits, root, nodes: new Map([[budgetId, root]]), scratch: { charged: zeros(), released: zeros(), before: zeros() } };
}

/** The reservations in the order reserved (a Map iterates in insertion order; the root came first). */
export function reservationsOf(tree: LedgerTree): Node[] {
  return [...tree.nodes.values()].slice(1);
}

export function nodeOf(tree: LedgerTree, id: string, what: string): Node {
  const node = tree.nodes.get(id);
  if (node === undefined) throw invalid(`${what}: unknown reservation "${id}"`, { reservationId: id });
  return node;
}

/** The nearest node from `node` up that names dimension `index`. */
export function holderOf(node: Node | undefined, index: number): Node | undefined {
  let current = node;
  while (current !== undefined && current.held[index] === undefined) current = current.parent;
  return current;
}

/** Bits of the dimensions `vector` names, or'ed with `inherited`. */
export function maskOf(vector: Vector, inherited: number): number {
  let mask = inherited;
  for (let index = 0; index < DIMENSION_COUNT; index++) if (vector[index] !== undefined) mask |= 1 << index;
  return mask;
}

/** What settling gives back in one dimension: held less charged, never below zero (nothing when it held nothing). */
export function releasedOf(held: number | undefined, charged: number): number {
  return held === undefined || held < charged ? 0 : held - charged;
}

/** Adds `delta` to the committed of `from` and every ancestor up to the first that names the dimension. */
export function propagate(from: Node | undefined, index: number, delta: number): void {
  // A shortcut: adding 0 changes no figure (it only keeps zeros a view reads alike).
  if (delta === 0) return;
  for (let node = from; node !== undefined; node = node.parent) {
    (node.committed ??= zeros())[index]! += delta;
    if (node.held[index] !== undefined) return;
  }
}
