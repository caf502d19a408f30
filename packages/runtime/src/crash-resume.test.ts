import { createMemoryJournal } from "@yoke/journal";
import { YokeError, parseYokeEvent, type JournalV1, type RunState } from "@yoke/protocol";
import { callTools, malformedToolArguments, say, truncated, type ScriptedStep } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ADMITTED,
  SimulatedCrash,
  TENANT,
  countingTool,
  crashingJournal,
  echoTool,
  keyedTool,
  readAll,
  rejectionOf,
  rig,
  journalCutAfterResponse,
} from "./__fixtures__/harness-fixtures.js";
import { defineTool, type AnyTool, type SideEffect } from "./define-tool.js";
import type { CompletionCheck } from "./harness-types.js";

const RUN = "run_crash";
const TASK = "store two keys";

/** Passes once the transcript shows k2 stored: a pure function of state, so a resume agrees. */
const storedK2: CompletionCheck = async ({ state }) =>
  state.messages.some((message) => message.role === "tool" && message.content.some((part) => part.result.content[0]?.text === "stored k2"))
    ? { passed: true }
    : { passed: false, reason: "k2 is not stored yet" };

const alwaysPasses: CompletionCheck = async () => ({ passed: true });

const script = (): ScriptedStep[] => [
  callTools([
    { name: "echo", args: { text: "a" } },
    { name: "store", args: { key: "k1" } },
  ]),
  malformedToolArguments("echo", "{bad"),
  truncated("partial"),
  say("done"),
  callTools([{ name: "store", args: { key: "k2" } }]),
  say("done now"),
];

async function answered(journal: JournalV1): Promise<number> {
  return (await readAll(journal, RUN)).filter((event) => event.type === "model.responded").length;
}

/** A fresh "process": new model holding only the unanswered steps, new ids, same journal. */
async function finishInFreshProcess(journal: JournalV1, steps: () => ScriptedStep[], tools: readonly AnyTool[], checkCompletion: CompletionCheck = storedK2) {
  const rest = steps().slice(await answered(journal));
  const fresh = rig(rest, { journal, tools, checkCompletion, idStart: 1_000 });
  const exists = (await journal.head({ tenantId: TENANT, runId: RUN })) !== null;
  const result = exists ? await fresh.harness.resume(RUN) : await fresh.harness.start(TASK, { runId: RUN });
  fresh.model.assertConsumed();
  expect(fresh.model.unexpectedCalls).toBe(0);
  return result;
}

const comparable = (state: RunState) => ({ messages: state.messages, outcome: state.outcome, turns: state.turns, usage: state.usage });

describe("resume after a crash at every append boundary", async () => {
  const store = countingTool("store", "idempotent");
  const tools = [echoTool, store.tool];
  const reference = rig(script(), { tools, checkCompletion: storedK2 });
  const expected = await reference.harness.start(TASK, { runId: RUN });
  reference.model.assertConsumed();
  const boundaries = reference.journal.appends.length;

  it("the reference run has the shape the cases below cut", () => {
    expect(expected.outcome?.status).toBe("verified_success");
    expect(boundaries).toBeGreaterThanOrEqual(10);
  });

  const cases = Array.from({ length: boundaries }, (_, allowed) => allowed).flatMap((allowed) =>
    (["lost", "written"] as const).map((mode) => ({ allowed, mode })),
  );
  it.each(cases)("crash on append $allowed + 1 ($mode): the resumed run ends like the uninterrupted one", async ({ allowed, mode }) => {
    const journal = createMemoryJournal();
    const crashed = rig(script(), { journal: crashingJournal(journal, allowed, mode), tools, checkCompletion: storedK2 });
    const error = await rejectionOf(crashed.harness.start(TASK, { runId: RUN }));
    expect(error).toBeInstanceOf(SimulatedCrash);

    const result = await finishInFreshProcess(journal, script, tools);
    expect(comparable(result.state)).toEqual(comparable(expected.state));
    expect((await journal.verify({ tenantId: TENANT, runId: RUN })).ok).toBe(true);
  });
});

describe("an action a crash cut after action.executing", () => {
  const steps = (name: string) => () => [callTools([{ name, args: { key: "k" } }]), say("done")];

  // Append 3 is [action.committed, turn.started, model.requested]: "lost" means the handler
  // ran and its outcome never became durable. Append 2 "written" means action.executing is
  // durable but the handler never ran. Either way a resume cannot tell which happened: the
  // action becomes uncertain and only reconciliation decides.
  it.each([
    { sideEffect: "none", allowed: 2, mode: "lost", ranBefore: 1 },
    { sideEffect: "idempotent", allowed: 2, mode: "lost", ranBefore: 1 },
    { sideEffect: "idempotent", allowed: 1, mode: "written", ranBefore: 0 },
  ] as const)(
    "$sideEffect ($mode after $allowed appends): uncertain, retry_safe, attempt 2 of the same action",
    async ({ sideEffect, allowed, mode, ranBefore }) => {
      const { tool, calls } = countingTool("store", sideEffect);
      const journal = createMemoryJournal();
      const crashed = rig(steps("store")(), { journal: crashingJournal(journal, allowed, mode), tools: [tool], checkCompletion: alwaysPasses });
      await rejectionOf(crashed.harness.start(TASK, { runId: RUN }));
      expect(calls).toHaveLength(ranBefore);

      const before = (await readAll(journal, RUN)).length;
      const result = await finishInFreshProcess(journal, steps("store"), [tool], alwaysPasses);
      expect(result.outcome?.status).toBe("verified_success");
      expect(calls.map((call) => call.attempt)).toEqual([...(ranBefore === 1 ? [1] : []), 2]);
      expect(new Set(calls.map((call) => call.actionId)).size).toBe(1);

      const added = (await readAll(journal, RUN)).slice(before).map(parseYokeEvent);
      expect(added.slice(0, 4).map((event) => event.type)).toEqual(["action.uncertain", "action.reconciled", "action.leased", "action.executing"]);
      const reconciled = added[1]!;
      expect(reconciled.type === "action.reconciled" && reconciled.data.verdict).toBe("retry_safe");
      const last = result.state.messages.findLast((message) => message.role === "tool");
      expect(last?.role === "tool" && last.content[0]!.result.status).toBe("ok");
    },
  );

  it.each([
    { sideEffect: "reversible", allowed: 2, mode: "lost", ranBefore: 1 },
    { sideEffect: "irreversible", allowed: 2, mode: "lost", ranBefore: 1 },
    { sideEffect: "irreversible", allowed: 1, mode: "written", ranBefore: 0 },
  ] as const)(
    "$sideEffect without a reconciler ($mode after $allowed appends): not re-run, the run escalates naming the action",
    async ({ sideEffect, allowed, mode, ranBefore }) => {
      const { tool, calls } = countingTool("launch", sideEffect as SideEffect);
      const journal = createMemoryJournal();
      const crashed = rig(steps("launch")(), { journal: crashingJournal(journal, allowed, mode), tools: [tool], checkCompletion: alwaysPasses });
      await rejectionOf(crashed.harness.start(TASK, { runId: RUN }));

      const before = (await readAll(journal, RUN)).length;
      const fresh = rig([], { journal, tools: [tool], checkCompletion: alwaysPasses, idStart: 1_000 });
      const result = await fresh.harness.resume(RUN);
      expect(calls).toHaveLength(ranBefore);
      const added = (await readAll(journal, RUN)).slice(before).map(parseYokeEvent);
      expect(added.map((event) => event.type)).toEqual(["action.uncertain", "action.reconciled", "run.completed"]);
      const actionId = added[0]!.type === "action.uncertain" ? added[0]!.data.actionId : "";
      expect(result.outcome).toMatchObject({ status: "escalated", actionId });
      expect(result.outcome?.status === "escalated" && result.outcome?.reason).toMatch(/no reconciler/);
    },
  );

  it.each([
    { allowed: 2, mode: "lost", ranBefore: 1, verdict: "applied", attempts: [1] },
    { allowed: 1, mode: "written", ranBefore: 0, verdict: "not_applied", attempts: [2] },
  ] as const)(
    "irreversible with a reconciler ($mode after $allowed appends): $verdict, the effect happens exactly once",
    async ({ allowed, mode, verdict, attempts }) => {
      const applied = new Set<string>();
      const calls: number[] = [];
      const launch = defineTool({
        name: "launch",
        description: "Launches once per key.",
        input: z.object({ key: z.string() }),
        sideEffect: "irreversible",
        async execute(_input, context) {
          calls.push(context.attempt);
          applied.add(context.idempotencyKey);
          return { content: "launched", receipt: { id: context.idempotencyKey } };
        },
        reconcile: async (actionId) =>
          applied.has(actionId) ? { status: "applied", receipt: { id: actionId }, content: "launched (reconciled)" } : { status: "not_applied" },
      });
      const journal = createMemoryJournal();
      const crashed = rig(steps("launch")(), { journal: crashingJournal(journal, allowed, mode), tools: [launch], checkCompletion: alwaysPasses });
      await rejectionOf(crashed.harness.start(TASK, { runId: RUN }));
      const before = (await readAll(journal, RUN)).length;
      const result = await finishInFreshProcess(journal, steps("launch"), [launch], alwaysPasses);
      expect(result.outcome?.status).toBe("verified_success");
      expect(calls).toEqual(attempts);
      expect(applied.size).toBe(1);
      const added = (await readAll(journal, RUN)).slice(before).map(parseYokeEvent);
      const reconciled = added.find((event) => event.type === "action.reconciled");
      expect(reconciled?.type === "action.reconciled" && reconciled.data.verdict).toBe(verdict);
    },
  );
});

describe("a batch whose last outcome a resume settles", () => {
  it("compensates a reversible action committed by reconciliation when another action of the batch failed for good", async () => {
    const applied = new Set<string>();
    const undone: string[] = [];
    const book = keyedTool(
      "book",
      "reversible",
      async (_input, context) => {
        // The first attempt's stream is cut before anything is booked.
        if (context.attempt === 1) throw new YokeError("PROVIDER_STREAM_CUT", "the stream was cut before the booking");
        applied.add(context.idempotencyKey);
        return { content: "booked", receipt: context.idempotencyKey };
      },
      {
        maxAttempts: 3,
        reconcile: async (actionId) =>
          applied.has(actionId) ? { status: "applied", receipt: actionId, content: "booked (reconciled)" } : { status: "not_applied" },
        compensate: async (_input, context) => {
          undone.push(context.actionId);
        },
      },
    );
    const pay = keyedTool(
      "pay",
      "irreversible",
      async () => {
        throw new YokeError("TOOL_FAILED", "card declined");
      },
      { reconcile: async () => ({ status: "not_applied" }) },
    );
    const steps = () => [
      callTools([
        { name: "book", args: { key: "room" } },
        { name: "pay", args: { key: "card" } },
      ]),
      say("done"),
    ];
    // Append 3 holds pay's failure for good and book's attempt 2 leased and executing; append 4
    // (book committed) is lost after book's handler ran: only a reconciliation can settle book,
    // and with it the batch.
    const journal = createMemoryJournal();
    const crashed = rig(steps(), { journal: crashingJournal(journal, 3, "lost"), tools: [book, pay], checkCompletion: alwaysPasses });
    await rejectionOf(crashed.harness.start(TASK, { runId: RUN }));
    expect(applied.size).toBe(1);
    expect(undone).toEqual([]);

    const before = (await readAll(journal, RUN)).length;
    const result = await finishInFreshProcess(journal, steps, [book, pay], alwaysPasses);
    expect(result.outcome?.status).toBe("verified_success");
    expect(undone).toEqual([...applied]);
    const added = (await readAll(journal, RUN)).slice(before).map(parseYokeEvent);
    expect(added.slice(0, 3).map((event) => event.type)).toEqual(["action.uncertain", "action.reconciled", "action.compensating"]);
    expect(added.map((event) => event.type)).toContain("action.compensated");
    expect(result.state.actions.find((action) => action.toolName === "book")?.status.state).toBe("compensated");
  });
});

describe("a resume that escalates", () => {
  it("names every action it leaves uncertain, and journals a retry it leased as not dispatched, so nothing is left executing", async () => {
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
    const calls = [
      { name: "launch", args: { key: "a" } },
      { name: "launch", args: { key: "b" } },
      { name: "pay", args: { key: "c" } },
    ];
    // The admission is durable, then the process dies before dispatching anything.
    const journal = createMemoryJournal();
    const crashed = rig([callTools(calls), say("done")], {
      journal: crashingJournal(journal, 1, "written"),
      tools: [launch, pay],
      checkCompletion: alwaysPasses,
    });
    await rejectionOf(crashed.harness.start(TASK, { runId: RUN }));
    expect(ran).toEqual([]);

    const fresh = rig([], { journal, tools: [launch, pay], checkCompletion: alwaysPasses, idStart: 1_000 });
    const result = await fresh.harness.resume(RUN);
    expect(ran).toEqual([]);
    const [first, second, third] = result.state.actions;
    expect(result.outcome).toMatchObject({ status: "escalated", actionId: first!.actionId });
    expect(result.outcome?.status === "escalated" && result.outcome?.reason).toContain(`also left uncertain: ${second!.actionId}`);
    expect(result.state.actions.map((action) => action.status.state)).toEqual(["uncertain", "uncertain", "failed"]);
    const failed = (await readAll(journal, RUN)).map(parseYokeEvent).find((event) => event.type === "action.failed");
    expect(failed?.type === "action.failed" && [failed.data.actionId, failed.data.dispatched, failed.data.result.error?.code]).toEqual([
      third!.actionId,
      false,
      "CANCELLED",
    ]);
  });
});

describe("resume never repeats what the journal holds", () => {
  it("a journaled response is not requested again (an empty scripted model would throw PROVIDER_UNEXPECTED_CALL)", async () => {
    const store = countingTool("store", "idempotent");
    const journal = createMemoryJournal();
    // Crash with the response durable and the tool's result lost; one turn, so no further request is due.
    const crashed = rig([callTools([{ name: "store", args: { key: "k" } }])], {
      journal: crashingJournal(journal, 2, "lost"),
      tools: [store.tool],
      maxTurns: 1,
    });
    await rejectionOf(crashed.harness.start(TASK, { runId: RUN }));
    const fresh = rig([], { journal, tools: [store.tool], maxTurns: 1, idStart: 1_000 });
    const result = await fresh.harness.resume(RUN);
    expect(result.outcome).toEqual({ status: "budget_exhausted", budget: "turns", limit: 1 });
    expect(fresh.model.calls).toEqual([]);
    expect(fresh.model.unexpectedCalls).toBe(0);
  });

  it("a legacy tool.started without tool.completed (a journal from before action transactions) completes with TOOL_INTERRUPTED, not re-run", async () => {
    const store = countingTool("store", "idempotent");
    const journal = await journalCutAfterResponse(
      RUN,
      [store.tool],
      [{ type: "tool-call", toolCallId: "c1", toolName: "store", rawArguments: '{"key":"k"}', arguments: { key: "k" } }],
      { task: TASK },
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
    expect(result.outcome?.status).toBe("completed");
    expect(store.calls).toEqual([]);
    // The interrupted call was the batch's last: its outcome goes with the next turn's request.
    expect(fresh.journal.appends[0]).toEqual(["tool.completed", "turn.started", "context.compiled", "model.requested"]);
    const tool = result.state.messages.find((message) => message.role === "tool");
    expect(tool?.role === "tool" && tool.content[0]!.result.error?.code).toBe("TOOL_INTERRUPTED");
  });

  it("proposed calls with no tool.started (another writer's journal) are started or rejected, then run", async () => {
    const store = countingTool("store", "idempotent");
    const journal = await journalCutAfterResponse(
      RUN,
      [store.tool],
      [
        { type: "tool-call", toolCallId: "c1", toolName: "store", rawArguments: '{"key":"k"}', arguments: { key: "k" } },
        { type: "tool-call", toolCallId: "c2", toolName: "ghost", rawArguments: "{}", arguments: {} },
      ],
      { task: TASK },
    );
    const fresh = rig([say("done")], { journal, tools: [store.tool], idStart: 1_000 });
    const result = await fresh.harness.resume(RUN);
    fresh.model.assertConsumed();
    expect(result.outcome?.status).toBe("completed");
    expect(store.calls).toEqual([{ key: "k", attempt: 1, actionId: "action_00000000001000" }]);
    expect(fresh.journal.appends.slice(0, 2)).toEqual([
      [...ADMITTED, "tool.rejected"],
      ["action.committed", "turn.started", "context.compiled", "model.requested"],
    ]);
  });
  it("an older journal's five admission events, cut after action.executing: uncertain, reconciled, attempt 2 of the same action", async () => {
    const store = countingTool("store", "idempotent");
    const journal = await journalCutAfterResponse(
      RUN,
      [store.tool],
      [{ type: "tool-call", toolCallId: "c1", toolName: "store", rawArguments: '{"key":"k"}', arguments: { key: "k" } }],
      { task: TASK },
    );
    const actionId = "action_old";
    const attemptId = "attempt_old";
    await journal.append({ tenantId: TENANT, runId: RUN }, 4, [
      {
        type: "action.proposed",
        at: 0,
        causationId: "turn_x",
        data: { turnId: "turn_x", toolCallId: "c1", toolName: "store", actionId, input: { key: "k" }, sideEffect: "idempotent" },
      },
      { type: "action.validated", at: 0, causationId: actionId, data: { actionId } },
      { type: "action.authorized", at: 0, causationId: actionId, data: { actionId, decision: "allow", rule: "default" } },
      { type: "action.leased", at: 0, causationId: actionId, data: { actionId, attemptId, attempt: 1, deadlineAt: 60_000 } },
      { type: "action.executing", at: 0, causationId: actionId, data: { actionId, attemptId } },
    ]);
    const fresh = rig([say("done")], { journal, tools: [store.tool], idStart: 1_000 });
    const result = await fresh.harness.resume(RUN);
    fresh.model.assertConsumed();
    expect(result.outcome?.status).toBe("completed");
    expect(store.calls).toEqual([{ key: "k", attempt: 2, actionId }]);
    expect(fresh.journal.appends[0]!.slice(0, 4)).toEqual(["action.uncertain", "action.reconciled", "action.leased", "action.executing"]);
    expect((await journal.verify({ tenantId: TENANT, runId: RUN })).ok).toBe(true);
  });
});
