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

describe("retries that do not fit the budget together", () => {
  // :356-365 (reserveLeased's path for an attempt that could not reserve when it was leased, never reached before): the
  // retry round leases both retries unreserved (they do not fit together); at dispatch the first fits, the second is
  // failed as not dispatched, BUDGET_EXHAUSTED.
  it("dispatch the ones that fit, one by one; the others fail, not dispatched, without running", async () => {
    const ran: string[] = [];
    const flaky = (name: string) =>
      keyedTool(
        name,
        "idempotent",
        async ({ key }, context) => {
          ran.push(`${name} ${key} ${context.attempt}`);
          if (context.attempt === 1) throw new YokeError("PROVIDER_STREAM_CUT", "the stream was cut");
          return `${name} done`;
        },
        { maxAttempts: 3 },
      );
    const { harness, journal } = rig(
      [
        callTools([
          { name: "save", args: { key: "a" } },
          { name: "send", args: { key: "b" } },
        ]),
        say("done"),
      ],
      { tools: [flaky("save"), flaky("send")], budget: { limits: { tool_ops: 3 } } },
    );
    const { runId, outcome, state } = await harness.start("t");
    expect(outcome).toEqual({ status: "completed" });
    expect(ran).toEqual(["save a 1", "send b 1", "save a 2"]);
    expect(state.actions.map((action) => [action.toolName, action.status.state])).toEqual([
      ["save", "committed"],
      ["send", "failed"],
    ]);
    const events = (await readAll(journal, runId)).map(parseYokeEvent);
    const last = events.filter((event) => event.type === "action.failed").at(-1);
    expect(last?.type === "action.failed" && last.data).toMatchObject({
      actionId: state.actions[1]!.actionId,
      dispatched: false,
      retryable: false,
      retrying: false,
      result: {
        error: {
          code: "BUDGET_EXHAUSTED",
          message: "the run's budget has no room for this attempt (tool_ops, limit 3); it was not dispatched",
        },
      },
    });
    // The retry that fit reserved at its dispatch (journaled), and was charged; the one that did not reserved nothing.
    const entries = events.flatMap((event) => budgetEntriesOf(event));
    const reserved = entries.flatMap((entry): BudgetReservation[] =>
      entry.kind === "reserved" && entry.data.attribution.kind === "tool_attempt" ? [entry.data] : [],
    );
    const settled = new Map(
      entries.flatMap((entry): [string, CarriedSettlement][] => (entry.kind === "settled" ? [[entry.data.reservationId, entry.data]] : [])),
    );
    const byAction = new Map(state.actions.map((action) => [action.actionId, action.toolName]));
    expect(reserved.map((reservation) => [byAction.get(reservation.attribution.actionId!), settled.get(reservation.reservationId)?.charged])).toEqual([
      ["save", { tool_ops: 1 }],
      ["send", { tool_ops: 1 }],
      ["save", { tool_ops: 1 }],
    ]);
  });
});
