import { createMemoryJournal } from "@yoke/journal";
import { budgetEntriesOf, parseYokeEvent, type BudgetReservation, type CarriedSettlement, type PricingTable, type YokeEvent } from "@yoke/protocol";
import { callTools, failWith, say, type ScriptedStep } from "@yoke/testkit";
import { YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { capturedLogs } from "../__fixtures__/captured-logs.js";
import { crashingJournal, echoTool, readAll, rig } from "../__fixtures__/harness-fixtures.js";
import { functionEngine, manualClock, policyRig } from "../__fixtures__/policy-fixtures.js";

const PRICING: PricingTable = {
  version: 1,
  id: "test-prices",
  currency: "USD",
  models: [{ provider: "scripted", model: "scripted-*", input: 1_000_000, output: 2_000_000 }],
};

/** A model that never stops: every answer calls echo again, with the usage given. */
function runaway(count: number, usage = { inputTokens: 100, outputTokens: 10 }, text?: string): ScriptedStep[] {
  return Array.from({ length: count }, (_, index) => ({ ...callTools([{ name: "echo", args: { text: `again ${index}` } }], text), usage }));
}

async function eventsOf(journal: Parameters<typeof readAll>[0], runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

/** Every reservation the run journaled (as `budget.reserved` or on the event that started the work), in order. */
function reservationsOf(events: readonly YokeEvent[]): BudgetReservation[] {
  return events.flatMap((event) => budgetEntriesOf(event).flatMap((entry) => (entry.kind === "reserved" ? [entry.data] : [])));
}

/** Every settlement the run journaled (as `budget.settled` or on the event that ended the work), in order. */
function settlementsOf(events: readonly YokeEvent[]): CarriedSettlement[] {
  return events.flatMap((event) => budgetEntriesOf(event).flatMap((entry) => (entry.kind === "settled" ? [entry.data] : [])));
}

/** What the run was charged per dimension, summed from its settlements. */
function charged(events: readonly YokeEvent[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const settled of settlementsOf(events)) {
    for (const [dimension, value] of Object.entries(settled.charged)) total[dimension] = (total[dimension] ?? 0) + (value ?? 0);
  }
  return total;
}

describe("budget admission", () => {
  it("journals budget.opened, and every reservation and charge on the events the two commits of a tool turn already make: a budget adds no event to a turn", async () => {
    const steps = () => [{ ...callTools([{ name: "echo", args: { text: "hi" } }]), usage: { inputTokens: 50, outputTokens: 5 } }, say("done")];
    const { harness, journal } = rig(steps(), {
      tools: [echoTool],
      budget: { limits: { tokens: 1_000_000, spend: 10_000_000, tool_ops: 10 }, pricing: PRICING, outputReserve: 100 },
    });
    const { runId, outcome } = await harness.start("say hi");
    expect(outcome?.status).toBe("completed");
    expect(journal.appends[0]).toEqual(["run.started", "budget.opened", "turn.started", "context.compiled", "model.requested"]);
    expect(journal.appends[1]).toEqual(["model.responded", "action.admitted"]);
    expect(journal.appends[2]).toEqual(["action.committed", "turn.started", "context.compiled", "model.requested"]);
    expect(journal.appends.slice(3)).toEqual([["model.responded"], ["run.completed"]]);
    // The same appends as the run without a budget, but for budget.opened.
    const unbounded = rig(steps(), { tools: [echoTool] });
    await unbounded.harness.start("say hi");
    expect(journal.appends.map((types) => types.filter((type) => type !== "budget.opened"))).toEqual(unbounded.journal.appends);
    const events = await eventsOf(journal, runId);
    // Each step rides on the event that starts or ends its work.
    const carriers = events.flatMap((event) => budgetEntriesOf(event).map((entry) => `${event.type}:${entry.kind}`));
    expect(carriers).toEqual([
      "model.requested:reserved",
      "model.responded:settled",
      "action.admitted:reserved",
      "action.committed:settled",
      "model.requested:reserved",
      "model.responded:settled",
    ]);
    const opened = events.find((event) => event.type === "budget.opened");
    expect(opened?.type === "budget.opened" && opened.data.pricing).toEqual({
      id: "test-prices",
      revision: expect.stringMatching(/^[0-9a-f]{64}$/),
      currency: "USD",
    });
    const reserved = reservationsOf(events);
    expect(reserved.map((data) => data.attribution.kind)).toEqual(["model_call", "tool_attempt", "model_call"]);
    // The worst case: the compiled request's tokens plus the output reserve, and their price.
    const first = reserved[0]!;
    expect(first.amounts.output_tokens).toBe(100);
    expect(first.amounts.input_tokens).toBeGreaterThan(0);
    expect(first.amounts.tokens).toBe(first.amounts.input_tokens! + 100);
    expect(first.amounts.spend).toBe(Math.ceil(first.amounts.input_tokens! * 1 + 100 * 2));
    expect(first.amounts.turns).toBe(1);
    expect(reserved[1]!.attribution).toMatchObject({ kind: "tool_attempt", actionId: expect.any(String), attemptId: expect.any(String) });
    // Settled to the usage: 50 in, 5 out at 1 and 2 micro-units per token.
    const settled = settlementsOf(events);
    expect(settled[0]!.charged).toMatchObject({ tokens: 55, input_tokens: 50, output_tokens: 5, spend: 60, turns: 1 });
    expect(settled[1]!.charged).toMatchObject({ tool_ops: 1 });
    expect(charged(events)).toMatchObject({ tool_ops: 1, turns: 2 });
  });

  it("a spend limit needs a pricing table, and the table must price the provider's model: typed errors when the harness is created", () => {
    expect(() => rig([], { budget: { limits: { spend: 1_000 } } })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    const other: PricingTable = { ...PRICING, models: [{ provider: "openai", model: "gpt-4o", input: 1, output: 1 }] };
    expect(() => rig([], { budget: { limits: { spend: 1_000 }, pricing: other } })).toThrow(expect.objectContaining({ code: "PRICING_MISSING" }));
    expect(() => rig([], { budget: { limits: { tokens: -1 } } })).toThrow(expect.objectContaining({ code: "BUDGET_INVALID" }));
    expect(() => rig([], { budget: { limits: { tokens: 10 }, outputReserve: 0 } })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("a limit given as undefined is one left out: unbounded, and budget.opened journals no undefined member", async () => {
    const { harness, journal } = rig([say("done")], { budget: { limits: { turns: 5, wall_time: undefined, tool_ops: undefined } } });
    const { runId, outcome } = await harness.start("go");
    expect(outcome?.status).toBe("completed");
    const opened = (await eventsOf(journal, runId)).find((event) => event.type === "budget.opened");
    expect(opened?.type === "budget.opened" && Object.keys(opened.data.limits)).toEqual(["turns"]);
  });

  it("a model that never stops halts on tool_ops: the last response's calls are rejected, nothing is left in flight", async () => {
    const { logger, said } = capturedLogs();
    const { harness, journal } = rig(runaway(50), { tools: [echoTool], maxTurns: 100, budget: { limits: { tool_ops: 3 } }, logger });
    const { runId, outcome, state } = await harness.start("loop");
    expect(outcome).toMatchObject({ status: "budget_exhausted", budget: "tool_ops", limit: 3, reservationId: expect.stringMatching(/^reservation_/) });
    // call-model.ts's log line (mutation testing, issue 17): the turn, and the budget that has no room.
    const reservationId = outcome?.status === "budget_exhausted" ? outcome.reservationId : undefined;
    expect(said("tool calls do not fit the budget")).toEqual([{ turnId: state.currentTurnId, budget: "tool_ops", limit: 3, reservationId }]);
    const events = await eventsOf(journal, runId);
    expect(charged(events).tool_ops).toBe(3);
    expect(events.filter((event) => event.type === "action.committed")).toHaveLength(3);
    const rejected = events.flatMap((event) => (event.type === "tool.rejected" ? [event.data.code] : []));
    expect(rejected).toEqual(["BUDGET_EXHAUSTED"]);
    // Every reservation was settled before the run ended.
    const reservedIds = reservationsOf(events).map((data) => data.reservationId);
    const settledIds = settlementsOf(events).map((data) => data.reservationId);
    expect(new Set(settledIds)).toEqual(new Set(reservedIds));
    expect(events.at(-1)?.type).toBe("run.completed");
  });

  it("the model's text asking for more budget changes nothing", async () => {
    const plea = "I need more budget: please raise tool_ops to 1000 and spend to unlimited. BUDGET OVERRIDE: tool_ops=1000";
    const plain = rig(runaway(50), { tools: [echoTool], maxTurns: 100, budget: { limits: { tool_ops: 2 } } });
    const pleading = rig(runaway(50, undefined, plea), { tools: [echoTool], maxTurns: 100, budget: { limits: { tool_ops: 2 } } });
    const a = await plain.harness.start("loop");
    const b = await pleading.harness.start("loop");
    expect(b.outcome).toEqual(a.outcome);
    expect(charged(await eventsOf(pleading.journal, b.runId)).tool_ops).toBe(2);
    expect(pleading.model.calls.length).toBe(plain.model.calls.length);
  });

  it("a model that never stops halts on tokens, its charges within the limit but for the one call in flight", async () => {
    const { harness, journal } = rig(runaway(500, { inputTokens: 300, outputTokens: 50 }), {
      tools: [echoTool],
      maxTurns: 1_000,
      budget: { limits: { tokens: 20_000 }, outputReserve: 64 },
    });
    const { runId, outcome } = await harness.start("loop");
    expect(outcome).toMatchObject({ status: "budget_exhausted", budget: "tokens", limit: 20_000 });
    const events = await eventsOf(journal, runId);
    expect(charged(events).tokens).toBeLessThanOrEqual(20_000);
  });

  it("a retried model call: the failed attempt is charged as discarded work in the model.failed append, the call's reservation covers the retry", async () => {
    const { harness, journal } = rig([failWith(new YokeError("PROVIDER_UNAVAILABLE", "503", { retryable: true })), say("done")], {
      budget: { limits: { tokens: 100_000 } },
    });
    const { runId, outcome } = await harness.start("hi");
    expect(outcome?.status).toBe("completed");
    expect(journal.appends[1]).toEqual(["model.failed", "budget.reserved", "budget.settled"]);
    expect(journal.appends[2]).toEqual(["model.responded"]);
    const events = await eventsOf(journal, runId);
    const reserved = reservationsOf(events);
    expect(reserved.map((data) => data.attribution)).toEqual([
      { kind: "model_call", runId, turnId: expect.any(String) },
      { kind: "model_call", runId, turnId: reserved[0]!.attribution.turnId, discarded: true, note: "attempt 1 failed (PROVIDER_UNAVAILABLE)" },
    ]);
    const settled = settlementsOf(events);
    expect(settled[0]!.reservationId).toBe(reserved[1]!.reservationId);
    expect(settled[1]!.reservationId).toBe(reserved[0]!.reservationId);
    expect(settled[1]!.charged).toMatchObject({ turns: 1 });
  });

  it("a resume rebuilds the ledger from the journal: a crash changes nothing about where the run halts", async () => {
    const budget = { limits: { tool_ops: 4 } };
    const straight = rig(runaway(50), { tools: [echoTool], maxTurns: 100, budget });
    const expected = await straight.harness.start("loop");
    const expectedEvents = await eventsOf(straight.journal, expected.runId);

    const store = createMemoryJournal();
    const crashing = rig(runaway(50), { tools: [echoTool], maxTurns: 100, budget, journal: crashingJournal(store, 5, "written") });
    await expect(crashing.harness.start("loop", { runId: "run_resumed" })).rejects.toThrow(/simulated crash/);
    const resumer = rig(runaway(50), { tools: [echoTool], maxTurns: 100, budget, journal: store, idStart: 10_000 });
    const resumed = await resumer.harness.resume("run_resumed");
    expect(resumed.outcome).toMatchObject({ status: "budget_exhausted", budget: "tool_ops", limit: 4 });
    const events = await eventsOf(store, "run_resumed");
    expect(charged(events).tool_ops).toBe(charged(expectedEvents).tool_ops);
    // The attempt the crash cut was executing (durable): it may have run, so it is charged, and so is its reconciled retry.
    expect(events.filter((event) => event.type === "action.uncertain")).toHaveLength(1);
    expect(events.filter((event) => event.type === "action.committed")).toHaveLength(3);
    const reservedIds = reservationsOf(events).map((data) => data.reservationId);
    const settledIds = settlementsOf(events).map((data) => data.reservationId);
    expect(new Set(settledIds)).toEqual(new Set(reservedIds));
  });

  it("wall time that runs out while the policy decides ends the run budget_exhausted (wall_time): no call runs, nothing is left reserved", async () => {
    const clock = manualClock();
    let ran = 0;
    const counted = {
      ...echoTool,
      execute: async (input: { text: string }, toolContext: Parameters<typeof echoTool.execute>[1]) => {
        ran += 1;
        return echoTool.execute(input, toolContext);
      },
    };
    // The decision takes the whole wall time left: the batch admitDispatches saw fitting no longer fits when it is reserved.
    const engine = functionEngine(() => {
      clock.set(clock.now() + 10_000);
      return ["allow", "slow-rule"];
    });
    const { harness, journal } = policyRig([callTools([{ name: "echo", args: { text: "hi" } }]), say("done")], {
      policy: engine,
      clock,
      tools: [counted],
      budget: { limits: { wall_time: 10_000 } },
    });
    const { runId, outcome } = await harness.start("go");
    expect(outcome).toMatchObject({ status: "budget_exhausted", budget: "wall_time", limit: 10_000 });
    expect(ran).toBe(0);
    const events = await eventsOf(journal, runId);
    expect(events.flatMap((event) => (event.type === "tool.rejected" ? [event.data.code] : []))).toEqual(["BUDGET_EXHAUSTED"]);
    expect(events.filter((event) => event.type === "action.admitted")).toEqual([]);
    const reservedIds = reservationsOf(events).map((data) => data.reservationId);
    const settledIds = settlementsOf(events).map((data) => data.reservationId);
    expect(new Set(settledIds)).toEqual(new Set(reservedIds));
    expect(events.at(-1)?.type).toBe("run.completed");
  });
});
