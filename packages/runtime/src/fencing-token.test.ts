import { YokeError, type CompensationContext, type ReconcileContext } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { rig } from "./__fixtures__/harness-fixtures.js";

describe("the run's fencing token reaches the backend at every step", () => {
  it("gives a reconciliation and a compensation the same fencing token the dispatch got", async () => {
    const seen = { execute: [] as (number | undefined)[], reconcile: [] as ReconcileContext[], compensate: [] as CompensationContext[] };
    const book = defineTool({
      name: "book",
      description: "Books a room; the acknowledgement gets lost.",
      input: z.object({}),
      sideEffect: "reversible",
      async execute(_input, context) {
        seen.execute.push(context.fencingToken);
        throw new YokeError("TOOL_OUTCOME_UNKNOWN", "the connection dropped before the acknowledgement");
      },
      async reconcile(_actionId, _receipt, context) {
        seen.reconcile.push(context);
        return { status: "applied", receipt: "booking_1" };
      },
      async compensate(_input, context) {
        seen.compensate.push(context);
      },
    });
    const pay = defineTool({
      name: "pay",
      description: "Pays; the bank refuses.",
      input: z.object({}),
      sideEffect: "irreversible",
      async execute(_input, context) {
        seen.execute.push(context.fencingToken);
        throw new YokeError("TOOL_FAILED", "refused by the bank");
      },
    });
    const { harness } = rig(
      [
        callTools([
          { name: "book", args: {} },
          { name: "pay", args: {} },
        ]),
        say("Could not pay; the booking was cancelled."),
      ],
      { tools: [book, pay] },
    );
    const result = await harness.start("Book and pay.", { runId: "run_fenced" });
    expect(result.outcome?.status).toBe("completed");
    expect(seen.execute).toEqual([1, 1]);
    expect(seen.reconcile).toHaveLength(1);
    expect(seen.reconcile[0]).toMatchObject({ fencingToken: 1, receipt: undefined });
    expect(seen.compensate).toHaveLength(1);
    expect(seen.compensate[0]).toMatchObject({ fencingToken: 1, receipt: "booking_1" });
  });
});
