import {
  type BudgetAmounts,
  type CarriedSettlement,
  type ChargeAttribution,
  ChargeAttributionSchema,
  budgetEntriesOf,
  canonicalJson,
  type ReservationResult,
  type YokeEvent,
} from "@yoke/protocol";
import { type Amounts, DIMENSION_COUNT, GAUGE, dimensionAt, emptyVector, indexOf, invalid, toAmounts, toVector, type Vector, zeros } from "./amounts.js";
import type { BudgetLedger, BudgetSnapshot, OpenedData, ReservationView, ReserveRequest, SettledData } from "./ledger-types.js";

interface Node {
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

/** What settling gives back in one dimension: held less charged, never below zero (nothing when it held nothing). Mutation testing:
 * `<=` here, and `index <= DIMENSION_COUNT` in any loop of this file (index 11 reads undefined, adds 0), are equivalent. */
function releasedOf(held: number | undefined, charged: number): number {
  return held === undefined || held < charged ? 0 : held - charged;
}

/** Bits of the dimensions `vector` names, or'ed with `inherited`. */
function maskOf(vector: Vector, inherited: number): number {
  let mask = inherited;
  for (let index = 0; index < DIMENSION_COUNT; index++) if (vector[index] !== undefined) mask |= 1 << index;
  return mask;
}

const ATTRIBUTION_KINDS: ReadonlySet<unknown> = new Set(ChargeAttributionSchema.shape.kind.options);
const ATTRIBUTION_STRINGS: ReadonlySet<string> = new Set(["turnId", "actionId", "attemptId", "verifierRunId", "childRunId", "note"]);

/**
 * The fast path of validating an attribution (a reservation per model call and per dispatch):
 * a plain object the schema accepts as it is, checked by hand and copied; undefined for
 * anything else, which the schema then parses (and names what is wrong). A mutant that answers
 * undefined more often (or `prepare` asking the schema always) is equivalent: the schema gives
 * the same result, slower. One that accepts more is killed (ledger-refusals.mutation.test.ts).
 */
function plainAttribution(value: unknown): ChargeAttribution | undefined {
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const member = record[key];
    if (key === "kind") {
      if (!ATTRIBUTION_KINDS.has(member)) return undefined;
    } else if (key === "runId") {
      if (typeof member !== "string" || member === "") return undefined;
    } else if (key === "discarded") {
      if (typeof member !== "boolean") return undefined;
    } else if (!ATTRIBUTION_STRINGS.has(key) || typeof member !== "string") return undefined;
  }
  if (record.kind === undefined || record.runId === undefined) return undefined;
  return { ...(record as ChargeAttribution) };
}

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
    // Read only of a settled reservation, which the root never is: `true` here is equivalent (mutation testing).
    overshoot: false,
  };
  const nodes = new Map<string, Node>([[budgetId, root]]);
  /** The reservations in the order reserved (a Map iterates in insertion order; the root came first). */
  const reservations = (): Node[] => [...nodes.values()].slice(1);

  const nodeOf = (id: string, what: string): Node => {
    const node = nodes.get(id);
    if (node === undefined) throw invalid(`${what}: unknown reservation "${id}"`, { reservationId: id });
    return node;
  };

  /** The nearest node from `node` up that names dimension `index`. */
  const holderOf = (node: Node | undefined, index: number): Node | undefined => {
    let current = node;
    while (current !== undefined && current.held[index] === undefined) current = current.parent;
    return current;
  };

  const prepare = (request: ReserveRequest): { parent: Node; vector: Vector; attribution: ChargeAttribution; refusal?: ReservationResult } => {
    if (typeof request !== "object" || request === null) throw invalid("reserve: expected a request object");
    const { reservationId, parentId } = request;
    if (typeof reservationId !== "string" || reservationId === "") throw invalid("reserve: reservationId must be a non-empty string");
    if (nodes.has(reservationId)) throw invalid(`reserve: reservation "${reservationId}" exists already`, { reservationId });
    const parent = nodeOf(parentId, "reserve");
    if (parent.charged !== undefined) throw invalid(`reserve: parent "${parentId}" is settled already`, { reservationId, parentId });
    const vector = toVector(request.amounts, `reserve ${reservationId}`, true);
    let attribution = plainAttribution(request.attribution);
    if (attribution === undefined) {
      const parsed = ChargeAttributionSchema.safeParse(request.attribution);
      if (!parsed.success) throw invalid(`reserve ${reservationId}: malformed attribution: ${parsed.error.message}`, { reservationId });
      attribution = parsed.data;
    }
    for (let index = 0; index < DIMENSION_COUNT; index++) {
      const requested = vector[index];
      if (requested === undefined || requested === 0) continue;
      const holder = holderOf(parent, index);
      if (holder === undefined) continue;
      const limit = holder.held[index]!;
      const committed = holder.committed?.[index] ?? 0;
      if (committed + requested > limit) {
        return {
          parent,
          vector,
          attribution,
          refusal: { ok: false, dimension: dimensionAt(index), reservationId: holder.id, limit, committed, requested },
        };
      }
    }
    return { parent, vector, attribution };
  };

  /** Adds `delta` to the committed of `from` and every ancestor up to the first that names the dimension. */
  const propagate = (from: Node | undefined, index: number, delta: number): void => {
    // A shortcut: adding 0 changes no figure (`false` here is equivalent, mutation testing; it only makes zeros a view reads alike).
    if (delta === 0) return;
    for (let node = from; node !== undefined; node = node.parent) {
      (node.committed ??= zeros())[index]! += delta;
      if (node.held[index] !== undefined) return;
    }
  };

  const reserve = (request: ReserveRequest): ReservationResult => {
    const { parent, vector, attribution, refusal } = prepare(request);
    if (refusal !== undefined) return refusal;
    const node: Node = {
      id: request.reservationId,
      parent,
      held: vector,
      bounded: maskOf(vector, parent.bounded),
      committed: undefined,
      amounts: undefined,
      // The ledger's own copy (plainAttribution or the schema made it): views hand out copies of it.
      attribution,
      openChildren: 0,
      charged: undefined,
      overshoot: false,
    };
    nodes.set(node.id, node);
    parent.openChildren++;
    for (let index = 0; index < DIMENSION_COUNT; index++) propagate(parent, index, vector[index] ?? 0);
    return { ok: true, reservationId: node.id };
  };

  const scratch = { charged: zeros(), released: zeros(), before: zeros() };

  /** What settling `node` with `actual` charges and releases (in the ledger's scratch vectors: commit it before the next plan); throws (changing nothing) when it may not. */
  const plan = (node: Node, actual: Vector, overshootAllowed: boolean) => {
    if (node === root) throw invalid(`settle: "${node.id}" is the budget itself, not a reservation`, { reservationId: node.id });
    if (node.charged !== undefined) throw invalid(`settle: reservation "${node.id}" is settled already`, { reservationId: node.id });
    if (node.openChildren > 0) {
      throw invalid(`settle: reservation "${node.id}" has ${node.openChildren} open reservation(s) under it; settle them first`, { reservationId: node.id });
    }
    // The ledger's scratch vectors: a plan is read by the commit that follows it, never kept.
    const { charged, released, before } = scratch;
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
      // `>=` is equivalent (mutation testing): equal, both give the same value.
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
  };

  /** The `budget.settled` data of charging `charged` and releasing `released` (fresh objects: the caller may keep or change them). */
  const settledOf = (node: Node, charged: Vector, released: Vector, overshoot: boolean): SettledData => {
    // Members in code-unit order (canonical JSON's): journaled without a sorted copy.
    const chargedAmounts = toAmounts(charged, true);
    const releasedAmounts = toAmounts(released, true);
    return overshoot
      ? { charged: chargedAmounts, overshoot: true, released: releasedAmounts, reservationId: node.id }
      : { charged: chargedAmounts, released: releasedAmounts, reservationId: node.id };
  };

  const commitSettle = (node: Node, planned: ReturnType<typeof plan>): SettledData => {
    node.charged = planned.charged.slice();
    node.overshoot = planned.overshoot;
    node.parent!.openChildren--;
    for (let index = 0; index < DIMENSION_COUNT; index++) propagate(node.parent, index, planned.charged[index]! - planned.before[index]!);
    return settledOf(node, planned.charged, planned.released, planned.overshoot);
  };

  /** A settled node's `budget.settled` data, made again from what it held and was charged (concurrency is charged 0, so it gives back all it held). */
  const settledData = (node: Node): SettledData => {
    const charged = node.charged!;
    const released: Vector = emptyVector();
    for (let index = 0; index < DIMENSION_COUNT; index++) {
      released[index] = releasedOf(node.held[index], charged[index]!);
    }
    return settledOf(node, charged, released, node.overshoot);
  };

  const amountsOf = (node: Node): Amounts => {
    node.amounts ??= Object.freeze(toAmounts(node.held));
    return node.amounts;
  };

  const view = (node: Node): ReservationView => {
    const base = { reservationId: node.id, parentId: node.parent!.id, amounts: amountsOf(node), attribution: { ...node.attribution! } };
    if (node.charged === undefined) return { ...base, status: "open" };
    const data = settledData(node);
    return { ...base, status: "settled", charged: data.charged, released: data.released, ...(data.overshoot ? { overshoot: true } : {}) };
  };

  const applyReserved = (data: ReserveRequest): void => {
    const existing = nodes.get(data.reservationId);
    if (existing !== undefined && existing !== root) {
      const same =
        existing.parent!.id === data.parentId &&
        canonicalJson(amountsOf(existing)) === canonicalJson(toAmounts(toVector(data.amounts, "budget.reserved", true))) &&
        canonicalJson(existing.attribution) === canonicalJson(data.attribution);
      if (same) return;
      throw invalid(`budget.reserved: reservation "${data.reservationId}" exists already with other fields`, { reservationId: data.reservationId });
    }
    const result = reserve(data);
    if (!result.ok) {
      throw invalid(
        `budget.reserved: reservation "${data.reservationId}" does not fit: ${result.dimension} ${result.committed} + ${result.requested} > ${result.limit} under "${result.reservationId}"`,
        { ...result },
      );
    }
  };

  // `released` is absent from a carried settlement (what the reservation held less `charged`): then only `charged` is compared.
  // canonicalJson leaves an undefined member out, so `{ charged, released }` always is equivalent (mutation testing).
  const settledForm = (charged: Amounts, released: Amounts | undefined): string => canonicalJson(released === undefined ? { charged } : { charged, released });

  const applySettled = (data: CarriedSettlement): void => {
    const node = nodeOf(data.reservationId, "budget.settled");
    const charged = toVector(data.charged, "budget.settled charged", false);
    const released = data.released === undefined ? undefined : toAmounts(toVector(data.released, "budget.settled released", false), true);
    const expected = settledForm(toAmounts(charged, true), released);
    if (node.charged !== undefined && node !== root) {
      const recorded = settledData(node);
      if (
        settledForm(recorded.charged, released === undefined ? undefined : recorded.released) === expected &&
        (recorded.overshoot === true) === (data.overshoot === true)
      )
        return;
      throw invalid(`budget.settled: reservation "${node.id}" is settled already, differently`, { reservationId: node.id });
    }
    const planned = plan(node, charged, data.overshoot === true);
    const computed = settledForm(toAmounts(planned.charged, true), released === undefined ? undefined : toAmounts(planned.released, true));
    if (computed !== expected) {
      throw invalid(`budget.settled: reservation "${node.id}": the journaled charge and release do not match what it holds (expected ${computed})`, {
        reservationId: node.id,
      });
    }
    commitSettle(node, planned);
  };

  return {
    specificationVersion: "v1",
    budgetId,
    limits,
    check: (request) => {
      const { refusal } = prepare(request);
      return refusal ?? { ok: true, reservationId: request.reservationId };
    },
    reserve,
    settle: (reservationId, actual, settleOptions = {}) => {
      const node = nodeOf(reservationId, "settle");
      return commitSettle(node, plan(node, toVector(actual, `settle ${reservationId}`, true), settleOptions.overshoot === true));
    },
    release: (reservationId) => {
      const node = nodeOf(reservationId, "release");
      return commitSettle(node, plan(node, zeros(), false));
    },
    remaining: (reservationId) => {
      const node = nodeOf(reservationId, "remaining");
      const room = emptyVector();
      for (let index = 0; index < DIMENSION_COUNT; index++) {
        const holder = holderOf(node, index);
        room[index] = holder === undefined ? undefined : Math.max(0, holder.held[index]! - (holder.committed?.[index] ?? 0));
      }
      return toAmounts(room);
    },
    remainingOf: (reservationId, dimension) => {
      const node = nodeOf(reservationId, "remainingOf");
      const index = indexOf(dimension);
      if (index === -1) throw invalid(`remainingOf: unknown budget dimension "${String(dimension)}"`, { dimension });
      const holder = holderOf(node, index);
      return holder === undefined ? undefined : Math.max(0, holder.held[index]! - (holder.committed?.[index] ?? 0));
    },
    committed: (reservationId) => {
      const node = nodeOf(reservationId, "committed");
      return toAmounts((node.committed ?? zeros()).map((value, index) => (value === 0 && node.held[index] === undefined ? undefined : value)));
    },
    apply: (event: YokeEvent) => {
      switch (event.type) {
        case "budget.opened": {
          const same =
            event.data.budgetId === budgetId && canonicalJson(toAmounts(toVector(event.data.limits, "budget.opened limits", false))) === canonicalJson(limits);
          if (!same)
            throw invalid(`budget.opened: budget "${event.data.budgetId}" is not this ledger's "${budgetId}" with its limits`, {
              budgetId: event.data.budgetId,
            });
          return;
        }
        default:
          // `budget.reserved` / `budget.settled`, or the reservation or settlement the work's own event carries.
          for (const entry of budgetEntriesOf(event)) {
            if (entry.kind === "reserved") applyReserved(entry.data as ReserveRequest);
            else applySettled(entry.data);
          }
          return;
      }
    },
    opened: (extra = {}): OpenedData => ({ budgetId, limits, ...extra }),
    reservation: (reservationId) => {
      const node = nodes.get(reservationId);
      return node === undefined || node === root ? undefined : view(node);
    },
    openReservations: () =>
      reservations()
        .filter((node) => node.charged === undefined)
        .map(view),
    snapshot: (): BudgetSnapshot => ({
      budgetId,
      limits,
      committed: toAmounts(root.committed!.map((value, index) => (value === 0 && root.held[index] === undefined ? undefined : value))),
      reservations: reservations().map(view),
    }),
  };
}
