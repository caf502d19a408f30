import { sequentialIdSource, steppingClock, type ActionRecord, type CompensationContext, type ReconcileContext } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { declaration } from "./__fixtures__/tools.js";
import { BatchTransaction } from "./batch-transaction.js";

const clock = steppingClock(0, 0);

/** An irreversible tool that records what its reconciler and compensation were told. */
function spyTool() {
  const reconciled: unknown[][] = [];
  const compensated: CompensationContext[] = [];
  const tool = declaration({
    name: "charge",
    sideEffect: "irreversible",
    reconcile: async (...args: [string, unknown, ReconcileContext]) => {
      reconciled.push(args);
      return { status: "applied", receipt: "receipt_1" };
    },
    compensate: async (_input, context) => {
      compensated.push(context);
    },
  });
  return { tool, reconciled, compensated };
}

describe("the fencing token in reconciliation and compensation", () => {
  it("hands the batch's fencing token to every reconciliation and compensation, beside the action id and receipt", async () => {
    const { tool, reconciled, compensated } = spyTool();
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource(), fencingToken: 7 });
    const item = batch.admit({ turnId: "turn_1", toolCallId: "c1", tool, input: {}, value: {} });
    batch.drain();
    await batch.settle(item, { kind: "uncertain", reason: "the acknowledgement was lost" });
    expect(reconciled).toEqual([[item.actionId, undefined, { actionId: item.actionId, receipt: undefined, fencingToken: 7 }]]);

    const record = { actionId: item.actionId, receipt: "receipt_1" } as ActionRecord;
    batch.beginCompensation([item.actionId], "a later action failed");
    await batch.compensate(record, tool, {}, new AbortController().signal);
    expect(compensated).toHaveLength(1);
    expect(compensated[0]).toMatchObject({ actionId: item.actionId, idempotencyKey: `${item.actionId}:compensate`, receipt: "receipt_1", fencingToken: 7 });
  });

  it("hands no token when the batch runs under no lease", async () => {
    const { tool, reconciled, compensated } = spyTool();
    const batch = new BatchTransaction({ clock, ids: sequentialIdSource() });
    const item = batch.admit({ turnId: "turn_1", toolCallId: "c1", tool, input: {}, value: {} });
    batch.drain();
    await batch.settle(item, { kind: "uncertain", reason: "the acknowledgement was lost" });
    expect(reconciled[0]![2]).toEqual({ actionId: item.actionId, receipt: undefined });
    batch.beginCompensation([item.actionId], "a later action failed");
    await batch.compensate({ actionId: item.actionId, receipt: undefined } as ActionRecord, tool, {}, new AbortController().signal);
    expect("fencingToken" in compensated[0]!).toBe(false);
  });
});
