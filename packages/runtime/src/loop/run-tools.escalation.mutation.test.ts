// run-tools.ts, a resume that recovers actions a stopped process left and escalates: what the
// journal and the log say, exactly. Written against survivors of reports/mutation/runtime.md
// (issue 17) at run-tools.ts :212, :287, :297-300, :317, :388-389, each applied by hand.
import { createMemoryJournal } from "@yoke/journal";
import { YokeError, budgetEntriesOf, parseYokeEvent } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { TENANT, countingTool, crashingJournal, journalCutAfterResponse, keyedTool, readAll, rejectionOf, rig } from "../__fixtures__/harness-fixtures.js";
import { capturedLogs } from "../__fixtures__/captured-logs.js";

const RUN = "run_recover";

describe("a resume that escalates on several actions a stopped process left", () => {
  it("names every other uncertain action, logs each recovery and the escalation, and fails the leased retry as not dispatched", async () => {
    const ran: string[] = [];
    const launch = keyedTool("launch", "irreversible", async ({ key }) => {
      ran.push(`launch ${key}`);
      return "launched";
    });
    const pay = keyedTool(
      "pay",
      "irreversible",
      async ({ key }) => {
        ran.push(`pay ${key}`);
        return "paid";
      },
      { reconcile: async () => ({ status: "not_applied" }) },
    );
    const calls = ["a", "b", "c"].map((key) => ({ name: "launch", args: { key } }));
    // The admission is durable, then the process dies before dispatching anything.
    const journal = createMemoryJournal();
    const crashed = rig([callTools([...calls, { name: "pay", args: { key: "d" } }]), say("never asked")], {
      journal: crashingJournal(journal, 1, "written"),
      tools: [launch, pay],
    });
    await rejectionOf(crashed.harness.start("t", { runId: RUN }));
    const { logger, said } = capturedLogs();
    const fresh = rig([], { journal, tools: [launch, pay], idStart: 1_000, logger });
    const result = await fresh.harness.resume(RUN);
    expect(ran).toEqual([]);
    const [a, b, c, d] = result.state.actions.map((action) => action.actionId) as [string, string, string, string];
    // :388 (the others joined by "") and :389 (the log line's fields or text emptied).
    expect(result.outcome).toEqual({
      status: "escalated",
      reason: `launch is irreversible and has no reconciler: whether action ${a} applied is unknown; also left uncertain: ${b}, ${c}`,
      actionId: a,
    });
    expect(said("run escalated")).toEqual([{ actionId: a, others: [b, c] }]);
    // :287 (the call removed) and :297-300 (its body, fields or text emptied).
    expect(said("recovered an action a stopped process left")).toEqual([
      ...[a, b, c].map((actionId) => ({ toolName: "launch", actionId, state: "executing", next: "escalate" })),
      { toolName: "pay", actionId: d, state: "executing", next: "retry" },
    ]);
    // :317 (why the leased retry did not run, emptied).
    const failed = (await readAll(journal, RUN)).map(parseYokeEvent).filter((event) => event.type === "action.failed");
    expect(failed.map((event) => event.type === "action.failed" && [event.data.actionId, event.data.dispatched, event.data.result.error])).toEqual([
      [d, false, { code: "CANCELLED", message: "the run escalated before this attempt was dispatched; it did not run" }],
    ]);
  });
});

describe("a legacy tool.started without its outcome (a journal from before action transactions)", () => {
  // :212 (the message emptied).
  it("completes with TOOL_INTERRUPTED, saying why it is not run again", async () => {
    const store = countingTool("store", "idempotent");
    const journal = await journalCutAfterResponse(
      RUN,
      [store.tool],
      [{ type: "tool-call", toolCallId: "c1", toolName: "store", rawArguments: '{"key":"k"}', arguments: { key: "k" } }],
    );
    await journal.append({ tenantId: TENANT, runId: RUN }, 4, [
      {
        type: "tool.started",
        at: 0,
        causationId: "action_old",
        data: { turnId: "turn_x", toolCallId: "c1", toolName: "store", actionId: "action_old", attemptId: "attempt_old", attempt: 1, input: { key: "k" } },
      },
    ]);
    const fresh = rig([say("done")], { journal, tools: [store.tool], idStart: 1_000 });
    const result = await fresh.harness.resume(RUN);
    expect(store.calls).toEqual([]);
    const tool = result.state.messages.find((message) => message.role === "tool");
    expect(tool?.role === "tool" && tool.content[0]!.result.error).toEqual({
      code: "TOOL_INTERRUPTED",
      message: "the call was cut by a crash after it started; the effect may or may not have happened; not retried",
    });
  });
});

describe("a batch in which an action with an effect fails for good", () => {
  // :155 (the reason journaled with each compensation emptied); run-compensations.ts :232, the "compensation ran" log line.
  it("journals the compensation of the committed reversible action with its reason, and logs it", async () => {
    const undone: string[] = [];
    const { logger, said } = capturedLogs();
    const book = keyedTool("book", "reversible", async () => "booked", {
      compensate: async (_input, context) => {
        undone.push(context.actionId);
      },
    });
    const pay = keyedTool("pay", "irreversible", async () => {
      throw new YokeError("TOOL_FAILED", "card declined");
    });
    const { harness, journal } = rig(
      [
        callTools([
          { name: "book", args: { key: "room" } },
          { name: "pay", args: { key: "card" } },
        ]),
        say("done"),
      ],
      { tools: [book, pay], logger },
    );
    const { runId, outcome, state } = await harness.start("t");
    expect(outcome).toEqual({ status: "completed" });
    const booked = state.actions.find((action) => action.toolName === "book")!.actionId;
    expect(undone).toEqual([booked]);
    const compensating = (await readAll(journal, runId)).map(parseYokeEvent).filter((event) => event.type === "action.compensating");
    expect(compensating.map((event) => event.data)).toEqual([{ actionId: booked, reason: "an action of the same batch failed" }]);
    expect(said("compensation ran")).toEqual([{ toolName: "book", actionId: booked, outcome: "done" }]);
  });
});

describe("a batch a resume settles with a harness that lacks the tool of an action to undo", () => {
  // :147 (`action.toolRevision === undefined` as true, or as `!==`): the plan asked the live harness,
  // which lacks book, instead of book's pinned contract, and the booking was never undone.
  it("journals the compensation the pinned contract owes, stops, and a harness with the tool undoes it", async () => {
    const undone: string[] = [];
    const book = keyedTool("book", "reversible", async () => "booked", {
      compensate: async (_input, context) => {
        undone.push(context.actionId);
      },
    });
    const pay = keyedTool(
      "pay",
      "irreversible",
      async (_input, context) => {
        if (context.attempt === 1) throw new YokeError("PROVIDER_STREAM_CUT", "the stream was cut");
        throw new YokeError("TOOL_FAILED", "card declined");
      },
      { maxAttempts: 3, reconcile: async () => ({ status: "not_applied" }) },
    );
    const steps = () => [
      callTools([
        { name: "book", args: { key: "room" } },
        { name: "pay", args: { key: "card" } },
      ]),
      say("done"),
    ];
    // Append 3 (pay's attempt 2 settled) is lost: book is committed, pay is executing.
    const journal = createMemoryJournal();
    const crashed = rig(steps(), { journal: crashingJournal(journal, 3, "lost"), tools: [book, pay] });
    await rejectionOf(crashed.harness.start("t", { runId: RUN }));
    const lacking = rig([say("never asked")], { journal, tools: [pay], idStart: 1_000 });
    expect((await rejectionOf(lacking.harness.resume(RUN))).code).toBe("TOOL_REVISION_UNAVAILABLE");
    expect(lacking.model.remaining).toBe(1);
    const events = (await readAll(journal, RUN)).map(parseYokeEvent);
    const booked = events.find((event) => event.type === "action.committed")!;
    const compensating = events.filter((event) => event.type === "action.compensating");
    expect(compensating.map((event) => event.data.actionId)).toEqual([booked.type === "action.committed" ? booked.data.actionId : ""]);
    expect(undone).toEqual([]);
    const whole = rig([say("done")], { journal, tools: [book, pay], idStart: 2_000 });
    expect((await whole.harness.resume(RUN)).outcome).toEqual({ status: "completed" });
    expect(undone).toEqual(compensating.map((event) => event.data.actionId));
  });
});

describe("a call deferred behind a retried call it conflicts with", () => {
  // :108 (the deferred item dropped from the attempts this process leased, `!` removed or the test as true): the next
  // round took the deferred call for one a stopped process left, and an irreversible call without a reconciler escalated.
  it("runs in the next round as leased, once, without a recovery", async () => {
    const ran: string[] = [];
    const save = keyedTool(
      "save",
      "idempotent",
      async ({ key }, context) => {
        ran.push(`save ${key} ${context.attempt}`);
        if (context.attempt === 1) throw new YokeError("PROVIDER_STREAM_CUT", "the stream was cut");
        return "saved";
      },
      { maxAttempts: 2 },
    );
    const send = keyedTool("send", "irreversible", async ({ key }, context) => {
      ran.push(`send ${key} ${context.attempt}`);
      return "sent";
    });
    const { logger, said } = capturedLogs();
    const { harness } = rig(
      [
        callTools([
          { name: "save", args: { key: "doc" } },
          { name: "send", args: { key: "doc" } },
        ]),
        say("done"),
      ],
      { tools: [save, send], logger },
    );
    const { outcome, state } = await harness.start("t");
    expect(outcome).toEqual({ status: "completed" });
    expect(ran).toEqual(["save doc 1", "save doc 2", "send doc 1"]);
    expect(said("recovered an action a stopped process left")).toEqual([]);
    expect(state.actions.map((action) => action.status.state)).toEqual(["committed", "committed"]);
  });
});

describe("a resume that escalates in a run with a budget", () => {
  // :327 (settleOpenAttempts removed): the reservations of the actions the dead process dispatched were left open
  // in the finished run, neither charged nor released.
  it("settles every attempt's reservation as it ends the run: charged for what was dispatched, nothing left open", async () => {
    const launch = keyedTool("launch", "irreversible", async () => "launched");
    const journal = createMemoryJournal();
    const budget = { limits: { tool_ops: 100 } };
    const crashed = rig(
      [
        callTools([
          { name: "launch", args: { key: "a" } },
          { name: "launch", args: { key: "b" } },
        ]),
        say("never asked"),
      ],
      { journal: crashingJournal(journal, 1, "written"), tools: [launch], budget },
    );
    await rejectionOf(crashed.harness.start("t", { runId: RUN }));
    const fresh = rig([], { journal, tools: [launch], idStart: 1_000, budget });
    expect((await fresh.harness.resume(RUN)).outcome?.status).toBe("escalated");
    const entries = (await readAll(journal, RUN)).map(parseYokeEvent).flatMap((event) => budgetEntriesOf(event));
    const attempts = entries.flatMap((entry) => (entry.kind === "reserved" && entry.data.attribution.kind === "tool_attempt" ? [entry.data] : []));
    expect(attempts).toHaveLength(2);
    for (const reservation of attempts) {
      const settled = entries.filter((entry) => entry.kind === "settled" && entry.data.reservationId === reservation.reservationId);
      expect(settled.map((entry) => entry.kind === "settled" && entry.data.charged)).toEqual([{ tool_ops: 1 }]);
    }
  });
});

describe("a resume's new attempt in a run with a budget", () => {
  // :56 (reserveAhead of the recovered items removed): the attempt the recovery leased was reserved only at its dispatch,
  // journaled with its outcome, so a crash in between left a durable `executing` with nothing reserved for it.
  it("reserves in the commit that leases it, before its dispatch", async () => {
    const store = countingTool("store", "idempotent");
    const journal = createMemoryJournal();
    const budget = { limits: { tool_ops: 100 } };
    const crashed = rig([callTools([{ name: "store", args: { key: "k" } }]), say("never asked")], {
      journal: crashingJournal(journal, 1, "written"),
      tools: [store.tool],
      budget,
    });
    await rejectionOf(crashed.harness.start("t", { runId: RUN }));
    const fresh = rig([say("done")], { journal, tools: [store.tool], idStart: 1_000, budget });
    expect((await fresh.harness.resume(RUN)).outcome?.status).toBe("completed");
    expect(store.calls.map((call) => call.attempt)).toEqual([2]);
    const [recovery] = fresh.journal.appends;
    expect(recovery).toEqual(expect.arrayContaining(["action.uncertain", "action.reconciled", "action.leased", "action.executing", "budget.reserved"]));
  });
});
