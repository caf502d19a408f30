// run-tools.ts, what a batch charges to the run's budget when it escalates with a retry and a
// deferred call still leased: written against survivors of reports/mutation/runtime.md
// (issue 17) at run-tools.ts :82, :114 and :319, each applied by hand.
import { YokeError, budgetEntriesOf, parseYokeEvent, type BudgetReservation, type CarriedSettlement } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { keyedTool, readAll, rig } from "../__fixtures__/harness-fixtures.js";

describe("a batch that escalates with a retry and a deferred call leased", () => {
  it("charges what was dispatched, releases what was not, and reserves no retry it will not dispatch", async () => {
    const ran: string[] = [];
    // Its effect cannot be established (no reconciler): the run escalates on it.
    const launch = keyedTool("launch", "irreversible", async ({ key }) => {
      ran.push(`launch ${key}`);
      throw new YokeError("TOOL_OUTCOME_UNKNOWN", "the launcher hung up");
    });
    // Waits for launch (same key): deferred, then never dispatched.
    const announce = keyedTool("announce", "irreversible", async ({ key }) => {
      ran.push(`announce ${key}`);
      return "announced";
    });
    // Fails retryably: its retry is leased in the same round, then never dispatched.
    const save = keyedTool(
      "save",
      "idempotent",
      async ({ key }) => {
        ran.push(`save ${key}`);
        throw new YokeError("PROVIDER_STREAM_CUT", "the stream was cut");
      },
      { maxAttempts: 3 },
    );
    const { harness, journal } = rig(
      [
        callTools([
          { name: "launch", args: { key: "rocket" } },
          { name: "announce", args: { key: "rocket" } },
          { name: "save", args: { key: "log" } },
        ]),
        say("never asked"),
      ],
      { tools: [launch, announce, save], budget: { limits: { tool_ops: 100 } } },
    );
    const { runId, outcome, state } = await harness.start("t");
    expect(outcome?.status).toBe("escalated");
    expect(ran).toEqual(["launch rocket", "save log"]);
    const entries = (await readAll(journal, runId)).map(parseYokeEvent).flatMap((event) => budgetEntriesOf(event));
    const reserved = entries.flatMap((entry): BudgetReservation[] =>
      entry.kind === "reserved" && entry.data.attribution.kind === "tool_attempt" ? [entry.data] : [],
    );
    const settled = new Map(
      entries.flatMap((entry): [string, CarriedSettlement][] => (entry.kind === "settled" ? [[entry.data.reservationId, entry.data]] : [])),
    );
    const byAction = new Map(state.actions.map((action) => [action.actionId, action.toolName]));
    // :82 (an uncertain outcome charged as not dispatched), :319 (a deferred call never dispatched charged as if it ran),
    // :114 (the retry reserved although the batch escalates).
    expect(
      reserved.map((reservation) => [
        byAction.get(reservation.attribution.actionId!),
        reservation.attribution.attemptId,
        settled.get(reservation.reservationId)?.charged,
      ]),
    ).toEqual([
      ["launch", state.actions[0]!.attemptId, { tool_ops: 1 }],
      ["announce", state.actions[1]!.attemptId, {}],
      ["save", expect.any(String), { tool_ops: 1 }],
    ]);
    expect(state.actions.map((action) => [action.toolName, action.status.state])).toEqual([
      ["launch", "uncertain"],
      ["announce", "failed"],
      ["save", "failed"],
    ]);
  });
});

describe("a call cancelled before its dispatch, in a run with a budget", () => {
  // :82 (`outcome.dispatched` as true): an attempt failed before its dispatch was charged a tool operation.
  it("is released, not charged; the call that ran is charged", async () => {
    const controller = new AbortController();
    const ran: string[] = [];
    const first = keyedTool("first", "idempotent", async ({ key }) => {
      ran.push(`first ${key}`);
      controller.abort("operator stop");
      return "done first";
    });
    const second = keyedTool("second", "idempotent", async ({ key }) => {
      ran.push(`second ${key}`);
      return "done second";
    });
    const { harness, journal } = rig(
      [
        callTools([
          { name: "first", args: { key: "k" } },
          { name: "second", args: { key: "k" } },
        ]),
        say("never asked"),
      ],
      { tools: [first, second], budget: { limits: { tool_ops: 100 } } },
    );
    const { runId, outcome, state } = await harness.start("t", { signal: controller.signal });
    expect(outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(ran).toEqual(["first k"]);
    const events = (await readAll(journal, runId)).map(parseYokeEvent);
    const failed = events.find((event) => event.type === "action.failed");
    expect(failed?.type === "action.failed" && [failed.data.dispatched, failed.data.result.error?.code]).toEqual([false, "CANCELLED"]);
    const entries = events.flatMap((event) => budgetEntriesOf(event));
    const reserved = entries.flatMap((entry): BudgetReservation[] =>
      entry.kind === "reserved" && entry.data.attribution.kind === "tool_attempt" ? [entry.data] : [],
    );
    const settled = new Map(
      entries.flatMap((entry): [string, CarriedSettlement][] => (entry.kind === "settled" ? [[entry.data.reservationId, entry.data]] : [])),
    );
    expect(reserved.map((reservation) => [reservation.attribution.attemptId, settled.get(reservation.reservationId)?.charged])).toEqual([
      [state.actions[0]!.attemptId, { tool_ops: 1 }],
      [state.actions[1]!.attemptId, {}],
    ]);
  });
});
