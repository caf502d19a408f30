// Issue 15, the budget's leftovers: verifier runs are charged, a tool's wall time is charged to
// its own dispatch, and an attempt leased off the response's transaction reserves before it is
// dispatched (in the commit that leases it, not with its outcome).
import { createMemoryJournal } from "@yoke/journal";
import { budgetReport, foldBudget } from "@yoke/budget";
import {
  YokeError,
  budgetEntriesOf,
  parseYokeEvent,
  steppingClock,
  type BudgetReservation,
  type CarriedSettlement,
  type VerifierV1,
  type YokeEvent,
} from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { crashingJournal, keyedTool, readAll, rig } from "../__fixtures__/harness-fixtures.js";

async function eventsOf(journal: Parameters<typeof readAll>[0], runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

function reservationsOf(events: readonly YokeEvent[]): BudgetReservation[] {
  return events.flatMap((event) => budgetEntriesOf(event).flatMap((entry) => (entry.kind === "reserved" ? [entry.data] : [])));
}

function settlementOf(events: readonly YokeEvent[], reservationId: string): CarriedSettlement | undefined {
  for (const event of events)
    for (const entry of budgetEntriesOf(event)) if (entry.kind === "settled" && entry.data.reservationId === reservationId) return entry.data;
  return undefined;
}

/** A verifier that takes `tookMs` on the injected clock and passes, declaring `reserve`. */
function timedVerifier(clock: { advance(ms: number): void }, tookMs: number, runs: { count: number }, reserve?: VerifierV1["reserve"]): VerifierV1 {
  return {
    specificationVersion: "v1",
    id: "tests-pass",
    kind: "command",
    replaySafe: true,
    ...(reserve === undefined ? {} : { reserve }),
    async verify() {
      runs.count += 1;
      clock.advance(tookMs);
      return { verifierId: "tests-pass", kind: "command", passed: true };
    },
  };
}

describe("verifier runs are charged to the budget", () => {
  it("reserves the verifier's declared worst case on verifier.started (kind verifier) and charges its wall time on verifier.finished", async () => {
    const clock = steppingClock(1_000, 0);
    const runs = { count: 0 };
    const { harness, journal } = rig([say("done")], {
      clock,
      verifiers: [timedVerifier(clock, 1_200, runs, { wall_time: 5_000 })],
      budget: { limits: { wall_time: 60_000, tokens: 1_000_000 } },
    });
    const { runId, outcome } = await harness.start("finish it");
    expect(outcome?.status).toBe("verified_success");
    const events = await eventsOf(journal, runId);
    const started = events.find((event) => event.type === "verifier.started");
    const finished = events.find((event) => event.type === "verifier.finished");
    if (started?.type !== "verifier.started" || finished?.type !== "verifier.finished") throw new Error("no verifier run journaled");
    // Journaled in the carried form: the run, turn and verifier run are the event's own, and the kind is what verifier.started starts.
    expect(started.data.reserved).toEqual({ amounts: { wall_time: 5_000 }, parentId: expect.any(String), reservationId: expect.any(String) });
    expect(budgetEntriesOf(started)[0]?.data).toMatchObject({
      attribution: { kind: "verifier", runId, turnId: started.data.turnId, verifierRunId: started.data.verifierRunId },
      amounts: { wall_time: 5_000 },
    });
    // Its own time on the injected clock: the 1.2 s it took, nothing else; the rest (3.8 s) goes back.
    const reservationId = started.data.reserved!.reservationId;
    expect(finished.data.settled).toEqual({ reservationId, charged: { wall_time: 1_200 } });
    expect(foldBudget(events)?.reservation(reservationId)).toMatchObject({ status: "settled", charged: { wall_time: 1_200 }, released: { wall_time: 3_800 } });
    // The report, from the journal alone, names the verifier's charge.
    expect(budgetReport(events).byKind.verifier).toEqual({ count: 1, charged: { wall_time: 1_200 } });
  });

  it("a verifier that declares no reserve (checkCompletion) holds a model call's deadline, at most what is left: a quick check is not an overshoot, nor refused for room", async () => {
    const clock = steppingClock(1_000, 0);
    const { harness, journal } = rig([say("done")], {
      clock,
      modelCallTimeoutMs: 30_000,
      checkCompletion: async () => {
        clock.advance(40);
        return { passed: true };
      },
      budget: { limits: { wall_time: 10_000 } },
    });
    const { runId, outcome } = await harness.start("finish it");
    expect(outcome?.status).toBe("verified_success");
    const events = await eventsOf(journal, runId);
    const started = events.find((event) => event.type === "verifier.started");
    const finished = events.find((event) => event.type === "verifier.finished");
    if (started?.type !== "verifier.started" || finished?.type !== "verifier.finished") throw new Error("no verifier run journaled");
    // What was left of the 10 s (the model call took none of the injected clock's time), not the 30 s deadline.
    expect(started.data.reserved?.amounts.wall_time).toBe(10_000);
    expect(finished.data.settled?.charged).toEqual({ wall_time: 40 });
    expect(finished.data.settled?.overshoot).toBeUndefined();
  });

  it("a verifier run that does not fit ends the run budget_exhausted naming the dimension, before the verifier starts", async () => {
    const clock = steppingClock(1_000, 0);
    const runs = { count: 0 };
    const { harness, journal } = rig([say("done")], {
      clock,
      verifiers: [timedVerifier(clock, 1_200, runs, { wall_time: 5_000 })],
      budget: { limits: { wall_time: 3_000 } },
    });
    const { runId, outcome } = await harness.start("finish it");
    expect(outcome).toMatchObject({ status: "budget_exhausted", budget: "wall_time", limit: 3_000 });
    expect(runs.count).toBe(0);
    const events = await eventsOf(journal, runId);
    expect(events.some((event) => event.type === "verifier.started")).toBe(false);
    expect(events.at(-1)?.type).toBe("run.completed");
  });

  it("a verifier a crash cut short is settled (it ran) before it runs again; nothing is left open", async () => {
    const clock = steppingClock(1_000, 0);
    const store = createMemoryJournal();
    const budget = { limits: { wall_time: 60_000 } };
    let first = true;
    const dying: VerifierV1 = {
      ...timedVerifier(clock, 500, { count: 0 }, { wall_time: 2_000 }),
      async verify() {
        clock.advance(500);
        if (first) {
          first = false;
          throw new Error("the verifier's process was killed");
        }
        return { verifierId: "tests-pass", kind: "command", passed: true };
      },
    };
    const crashed = rig([say("done")], { clock, journal: store, verifiers: [dying], budget });
    await expect(crashed.harness.start("finish it", { runId: "run_cut" })).rejects.toThrow(/killed/);
    const resumed = rig([], { clock, journal: store, idStart: 1_000, verifiers: [dying], budget });
    expect((await resumed.harness.resume("run_cut")).outcome?.status).toBe("verified_success");
    const events = await eventsOf(store, "run_cut");
    const verifierRuns = reservationsOf(events).filter((reservation) => reservation.attribution.kind === "verifier");
    expect(verifierRuns).toHaveLength(2);
    for (const reservation of verifierRuns) expect(settlementOf(events, reservation.reservationId)?.charged.wall_time).toBe(500);
  });
});

describe("a cancellation settles what a crash left open", () => {
  it("a verifier run cut short by a crash, then a cancel before the resume: its reservation is settled with the run's end, nothing left open", async () => {
    const clock = steppingClock(1_000, 0);
    const store = createMemoryJournal();
    const budget = { limits: { wall_time: 60_000 } };
    const dying: VerifierV1 = {
      ...timedVerifier(clock, 500, { count: 0 }, { wall_time: 2_000 }),
      async verify() {
        clock.advance(500);
        throw new Error("the verifier's process was killed");
      },
    };
    const crashed = rig([say("done")], { clock, journal: store, verifiers: [dying], budget });
    await expect(crashed.harness.start("finish it", { runId: "run_cut" })).rejects.toThrow(/killed/);
    const resumed = rig([], { clock, journal: store, idStart: 1_000, verifiers: [dying], budget });
    await resumed.harness.interrupt("run_cut", { cancel: "operator stop" });
    expect((await resumed.harness.resume("run_cut")).outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    const events = await eventsOf(store, "run_cut");
    const verifierRuns = reservationsOf(events).filter((reservation) => reservation.attribution.kind === "verifier");
    expect(verifierRuns).toHaveLength(1);
    expect(settlementOf(events, verifierRuns[0]!.reservationId)?.charged.wall_time).toBe(500);
    expect(events.at(-1)?.type).toBe("run.completed");
  });
});

describe("a tool's wall time", () => {
  it("is charged to its own dispatch, not to the next model call", async () => {
    const clock = steppingClock(1_000, 0);
    const slow = keyedTool("slow", "none", async ({ key }) => {
      clock.advance(700);
      return `done ${key}`;
    });
    const { harness, journal } = rig([callTools([{ name: "slow", args: { key: "a" } }]), say("done")], {
      clock,
      tools: [slow],
      budget: { limits: { wall_time: 60_000, tool_ops: 10 } },
    });
    const { runId, outcome } = await harness.start("go slow");
    expect(outcome?.status).toBe("completed");
    const events = await eventsOf(journal, runId);
    const reservations = reservationsOf(events);
    const attempt = reservations.find((reservation) => reservation.attribution.kind === "tool_attempt")!;
    // Held: its share of the wall time (bounded), charged what it took.
    expect(attempt.amounts.wall_time).toBeGreaterThanOrEqual(700);
    expect(settlementOf(events, attempt.reservationId)).toMatchObject({ charged: { tool_ops: 1, wall_time: 700 } });
    expect(settlementOf(events, attempt.reservationId)?.overshoot).toBeUndefined();
    const calls = reservations.filter((reservation) => reservation.attribution.kind === "model_call");
    expect(calls.map((call) => settlementOf(events, call.reservationId)?.charged.wall_time ?? 0)).toEqual([0, 0]);
  });

  it("parallel dispatches share their batch's wall time: charged once in all, never twice", async () => {
    const clock = steppingClock(1_000, 0);
    const slow = keyedTool("slow", "none", async ({ key }) => {
      clock.advance(key === "a" ? 300 : 500);
      return `done ${key}`;
    });
    const { harness, journal } = rig(
      [
        callTools([
          { name: "slow", args: { key: "a" } },
          { name: "slow", args: { key: "b" } },
        ]),
        say("done"),
      ],
      { clock, tools: [slow], budget: { limits: { wall_time: 60_000 } } },
    );
    const { runId } = await harness.start("go slow");
    const events = await eventsOf(journal, runId);
    const attempts = reservationsOf(events).filter((reservation) => reservation.attribution.kind === "tool_attempt");
    const charged = attempts.map((attempt) => settlementOf(events, attempt.reservationId)?.charged.wall_time ?? 0);
    expect(charged).toEqual([400, 400]);
    expect(budgetReport(events).dimensions.find((row) => row.dimension === "wall_time")?.charged).toBe(800);
  });
});

describe("attempts leased off the response's transaction", () => {
  /** Idempotent, retried: its first attempt's stream is cut before anything happens. */
  function retriedTool(dispatches: { count: number }) {
    return keyedTool(
      "store",
      "idempotent",
      async ({ key }, context) => {
        dispatches.count += 1;
        if (context.attempt === 1) throw new YokeError("PROVIDER_STREAM_CUT", "the stream was cut before the write");
        return `stored ${key}`;
      },
      { maxAttempts: 3 },
    );
  }

  it("a retry reserves in the commit that leases it, before its dispatch", async () => {
    const dispatches = { count: 0 };
    const { harness, journal } = rig([callTools([{ name: "store", args: { key: "k" } }]), say("done")], {
      tools: [retriedTool(dispatches)],
      budget: { limits: { tool_ops: 10 } },
    });
    const { runId, outcome } = await harness.start("store it");
    expect(outcome?.status).toBe("completed");
    const events = await eventsOf(journal, runId);
    const leased = events.find((event) => event.type === "action.leased");
    if (leased?.type !== "action.leased") throw new Error("no retry leased");
    const retry = reservationsOf(events).find((reservation) => reservation.attribution.attemptId === leased.data.attemptId);
    expect(retry).toBeDefined();
    // The append that leased the retry holds its reservation: on its action.executing.
    const executing = events.find((event) => event.type === "action.executing" && event.data.attemptId === leased.data.attemptId);
    expect(executing?.type === "action.executing" && executing.data.reserved?.reservationId).toBe(retry!.reservationId);
    const leaseAppend = journal.appends.findIndex((types) => types.includes("action.leased"));
    const outcomeAppend = journal.appends.findIndex((types, index) => index > leaseAppend && types.includes("action.committed"));
    expect(outcomeAppend).toBeGreaterThan(leaseAppend);
  });

  it("a kill after a retry's lease: the retry's dispatch was reserved, so the resume charges it; no tool operation escapes the budget", async () => {
    const dispatches = { count: 0 };
    const store = createMemoryJournal();
    const budget = { limits: { tool_ops: 10 } };
    const steps = () => [callTools([{ name: "store", args: { key: "k" } }]), say("done")];
    // Appends: start, response + admitted, attempt 1 failed + retry leased (then the process dies, written).
    const crashed = rig(steps(), { tools: [retriedTool(dispatches)], budget, journal: crashingJournal(store, 2, "written") });
    await expect(crashed.harness.start("store it", { runId: "run_retry" })).rejects.toThrow(/simulated crash/);
    const before = await eventsOf(store, "run_retry");
    const leased = before.find((event) => event.type === "action.leased");
    if (leased?.type !== "action.leased") throw new Error("the retry was not leased before the kill");
    // The reservation is durable with the lease: a resume knows the attempt may have run.
    expect(reservationsOf(before).some((reservation) => reservation.attribution.attemptId === leased.data.attemptId)).toBe(true);
  });
});
