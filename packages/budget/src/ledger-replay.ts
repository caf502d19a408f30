// Rebuilding a ledger from the journal: each journaled reservation and settlement applied
// again, refused when it disagrees with what the ledger holds (a reservation or settlement
// already applied the same way is a no-op, so a replay may overlap what the ledger saw live).
import { type CarriedSettlement, budgetEntriesOf, canonicalJson, type YokeEvent } from "@yoke/protocol";
import { type Amounts, invalid, toAmounts, toVector } from "./amounts.js";
import { reserve } from "./ledger-admission.js";
import { commitSettle, plan, settledData } from "./ledger-settlement.js";
import { amountsOf } from "./ledger-reporting.js";
import { type LedgerTree, nodeOf } from "./ledger-tree.js";
import type { ReserveRequest } from "./ledger-types.js";

export function applyEvent(tree: LedgerTree, event: YokeEvent): void {
  switch (event.type) {
    case "budget.opened": {
      const same =
        event.data.budgetId === tree.budgetId &&
        canonicalJson(toAmounts(toVector(event.data.limits, "budget.opened limits", false))) === canonicalJson(tree.limits);
      if (!same)
        throw invalid(`budget.opened: budget "${event.data.budgetId}" is not this ledger's "${tree.budgetId}" with its limits`, {
          budgetId: event.data.budgetId,
        });
      return;
    }
    default:
      // `budget.reserved` / `budget.settled`, or the reservation or settlement the work's own event carries.
      for (const entry of budgetEntriesOf(event)) {
        if (entry.kind === "reserved") applyReserved(tree, entry.data as ReserveRequest);
        else applySettled(tree, entry.data);
      }
      return;
  }
}

function applyReserved(tree: LedgerTree, data: ReserveRequest): void {
  const existing = tree.nodes.get(data.reservationId);
  if (existing !== undefined && existing !== tree.root) {
    const same =
      existing.parent!.id === data.parentId &&
      canonicalJson(amountsOf(existing)) === canonicalJson(toAmounts(toVector(data.amounts, "budget.reserved", true))) &&
      canonicalJson(existing.attribution) === canonicalJson(data.attribution);
    if (same) return;
    throw invalid(`budget.reserved: reservation "${data.reservationId}" exists already with other fields`, { reservationId: data.reservationId });
  }
  const result = reserve(tree, data);
  if (!result.ok) {
    throw invalid(
      `budget.reserved: reservation "${data.reservationId}" does not fit: ${result.dimension} ${result.committed} + ${result.requested} > ${result.limit} under "${result.reservationId}"`,
      { ...result },
    );
  }
}

// `released` is absent from a carried settlement (what the reservation held less `charged`): then only `charged` is compared.
// canonicalJson leaves an undefined member out, so an absent `released` and an undefined one compare alike.
function settledForm(charged: Amounts, released: Amounts | undefined): string {
  return canonicalJson(released === undefined ? { charged } : { charged, released });
}

function applySettled(tree: LedgerTree, data: CarriedSettlement): void {
  const node = nodeOf(tree, data.reservationId, "budget.settled");
  const charged = toVector(data.charged, "budget.settled charged", false);
  const released = data.released === undefined ? undefined : toAmounts(toVector(data.released, "budget.settled released", false), true);
  const expected = settledForm(toAmounts(charged, true), released);
  if (node.charged !== undefined && node !== tree.root) {
    const recorded = settledData(node);
    if (
      settledForm(recorded.charged, released === undefined ? undefined : recorded.released) === expected &&
      (recorded.overshoot === true) === (data.overshoot === true)
    )
      return;
    throw invalid(`budget.settled: reservation "${node.id}" is settled already, differently`, { reservationId: node.id });
  }
  const planned = plan(tree, node, charged, data.overshoot === true);
  const computed = settledForm(toAmounts(planned.charged, true), released === undefined ? undefined : toAmounts(planned.released, true));
  if (computed !== expected) {
    throw invalid(`budget.settled: reservation "${node.id}": the journaled charge and release do not match what it holds (expected ${computed})`, {
      reservationId: node.id,
    });
  }
  commitSettle(node, planned);
}
