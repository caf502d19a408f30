// Admission and reservation: whether a request fits under every ancestor that binds it (the
// nearest binding one named in a refusal), and holding it once it does.
import { type ChargeAttribution, ChargeAttributionSchema, type ReservationResult } from "@yoke/protocol";
import { DIMENSION_COUNT, dimensionAt, invalid, toVector, type Vector } from "./amounts.js";
import { holderOf, type LedgerTree, maskOf, type Node, nodeOf, propagate } from "./ledger-tree.js";
import type { ReserveRequest } from "./ledger-types.js";

const ATTRIBUTION_KINDS: ReadonlySet<unknown> = new Set(ChargeAttributionSchema.shape.kind.options);
const ATTRIBUTION_STRINGS: ReadonlySet<string> = new Set(["turnId", "actionId", "attemptId", "verifierRunId", "childRunId", "note"]);

/**
 * The fast path of validating an attribution (a reservation per model call and per dispatch):
 * a plain object the schema accepts as it is, checked by hand and copied; undefined for
 * anything else, which the schema then parses (and names what is wrong). Answering undefined
 * costs only time; accepting what the schema refuses would not (ledger-refusals.mutation.test.ts).
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

/** A request checked against the tree: its parent, amounts and attribution, and the refusal when it does not fit. */
export interface Admission {
  readonly parent: Node;
  readonly vector: Vector;
  readonly attribution: ChargeAttribution;
  readonly refusal?: ReservationResult;
}

/** Checks a request, holding nothing; throws BUDGET_INVALID when it is malformed or names a closed parent. */
export function admit(tree: LedgerTree, request: ReserveRequest): Admission {
  if (typeof request !== "object" || request === null) throw invalid("reserve: expected a request object");
  const { reservationId, parentId } = request;
  if (typeof reservationId !== "string" || reservationId === "") throw invalid("reserve: reservationId must be a non-empty string");
  if (tree.nodes.has(reservationId)) throw invalid(`reserve: reservation "${reservationId}" exists already`, { reservationId });
  const parent = nodeOf(tree, parentId, "reserve");
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
}

/** Holds a request that fits; returns the refusal, holding nothing, when it does not. */
export function reserve(tree: LedgerTree, request: ReserveRequest): ReservationResult {
  const { parent, vector, attribution, refusal } = admit(tree, request);
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
  tree.nodes.set(node.id, node);
  parent.openChildren++;
  for (let index = 0; index < DIMENSION_COUNT; index++) propagate(parent, index, vector[index] ?? 0);
  return { ok: true, reservationId: node.id };
}
