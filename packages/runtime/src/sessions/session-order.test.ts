// The ordering rule of a session, as a table: what a send does for each state the session's
// last recorded run can be in. Runs are written by hand into a memory journal, so each row is
// exactly that state.
import { createMemoryJournal } from "@yoke/journal";
import { YokeError, parseYokeEvent, steppingClock, type Clock, type JournalV1, type Outcome } from "@yoke/protocol";
import { say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { TENANT, readAll, rejectionOf, rig } from "../__fixtures__/harness-fixtures.js";
import { SESSION_STREAM_SUFFIX } from "./session-stream.js";

const SESSION = "session_order";
const STREAM = `${SESSION}${SESSION_STREAM_SUFFIX}`;
const release = { runtime: "test", eventSchemaVersion: 1 };
const outcomes: Outcome[] = [
  { status: "completed" },
  { status: "verified_success" },
  { status: "verification_failed", reason: "r" },
  { status: "refused", reason: "r" },
  { status: "budget_exhausted", budget: "turns", limit: 1 },
  { status: "escalated", reason: "r" },
  { status: "cancelled", reason: "r" },
];

async function record(journal: JournalV1, runIds: readonly string[]): Promise<void> {
  const head = await journal.head({ tenantId: TENANT, runId: STREAM });
  const entries = runIds.map((runId) => ({ type: "session.appended", at: 1, causationId: null, data: { runId } }));
  const header = {
    type: "run.started",
    at: 1,
    causationId: null,
    data: { sessionId: SESSION, task: "s", tools: [], limits: { maxTurns: 1 }, sessionOf: SESSION, release },
  };
  await journal.append({ tenantId: TENANT, runId: STREAM }, head?.length ?? 0, head === null ? [header, ...entries] : entries);
}

async function writeRun(journal: JournalV1, runId: string, outcome: Outcome | undefined): Promise<void> {
  const started = {
    type: "run.started",
    at: 1,
    causationId: null,
    data: { sessionId: SESSION, task: `task of ${runId}`, tools: [], limits: { maxTurns: 3 }, release },
  };
  const completed = { type: "run.completed", at: 2, causationId: null, data: { outcome, turns: 0 } };
  await journal.append({ tenantId: TENANT, runId }, 0, outcome === undefined ? [started] : [started, completed]);
}

async function entries(journal: JournalV1): Promise<string[]> {
  return (await readAll(journal, STREAM)).map(parseYokeEvent).flatMap((event) => (event.type === "session.appended" ? [event.data.runId] : []));
}

/** Sends "next" as run_next to the session; what the send saw first is the session's last run. */
async function send(journal: JournalV1, options: { waitForSession?: boolean | number; sleep?: (ms: number) => Promise<void>; clock?: Clock } = {}) {
  const { waitForSession, ...overrides } = options;
  const sender = rig([say("ok")], { journal, idStart: 500, ...overrides });
  return sender.harness.start("next", { sessionId: SESSION, runId: "run_next", ...(waitForSession === undefined ? {} : { waitForSession }) });
}

describe("the ordering rule of a session: a send for each state of its last run", () => {
  it.each(outcomes.map((outcome) => ({ status: outcome.status, outcome })))("ended $status: the send continues it", async ({ outcome }) => {
    const journal = createMemoryJournal();
    await record(journal, ["run_prev"]);
    await writeRun(journal, "run_prev", outcome);
    const result = await send(journal);
    expect(result.state.continues?.map((pin) => pin.runId)).toEqual(["run_prev"]);
    expect(await entries(journal)).toEqual(["run_prev", "run_next"]);
  });

  it("started and not ended: SESSION_BUSY (retryable) naming it and its phase; nothing recorded", async () => {
    const journal = createMemoryJournal();
    await record(journal, ["run_prev"]);
    await writeRun(journal, "run_prev", undefined);
    const error = await rejectionOf(send(journal));
    expect(YokeError.hasCode(error, "SESSION_BUSY") && [error.retryable, error.details]).toEqual([
      true,
      { tenantId: TENANT, sessionId: SESSION, runId: "run_prev", phase: "ready" },
    ]);
    expect(await entries(journal)).toEqual(["run_prev"]);
    expect(await journal.head({ tenantId: TENANT, runId: "run_next" })).toBeNull();
  });

  it("recorded, no run.started, its lease live (being started elsewhere): SESSION_BUSY phase starting", async () => {
    const journal = createMemoryJournal();
    await record(journal, ["run_prev"]);
    await journal.leases!.acquire({ tenantId: TENANT, runId: "run_prev" }, { ownerId: "another-process", ttlMs: 60_000 });
    const error = await rejectionOf(send(journal));
    expect(YokeError.hasCode(error, "SESSION_BUSY") && error.details).toMatchObject({ runId: "run_prev", phase: "starting" });
    expect(await entries(journal)).toEqual(["run_prev"]);
  });

  it("recorded, no run.started, its lease free (its starter died between the two appends): abandoned, skipped, and never started late", async () => {
    const journal = createMemoryJournal();
    await writeRun(journal, "run_first", { status: "completed" });
    await record(journal, ["run_first", "run_prev"]);
    const result = await send(journal);
    expect(result.state.continues?.map((pin) => pin.runId)).toEqual(["run_first"]);
    expect(await entries(journal)).toEqual(["run_first", "run_prev", "run_next"]);
    // The dead starter's retry of run_prev is now a new send after run_next, which has ended.
    const retried = await rig([say("late")], { journal, idStart: 900 }).harness.start("prev again", { sessionId: SESSION, runId: "run_prev" });
    expect(retried.state.continues?.map((pin) => pin.runId)).toEqual(["run_first", "run_next"]);
    expect(await entries(journal)).toEqual(["run_first", "run_prev", "run_next", "run_prev"]);
  });

  it("recorded last is this very run (a start retried after a crash between the two appends): it starts, recorded once", async () => {
    const journal = createMemoryJournal();
    await writeRun(journal, "run_first", { status: "completed" });
    await record(journal, ["run_first", "run_next"]);
    const result = await send(journal);
    expect(result.state.continues?.map((pin) => pin.runId)).toEqual(["run_first"]);
    expect(await entries(journal)).toEqual(["run_first", "run_next"]);
  });

  it("waitForSession: true waits until the last run ends, then continues it", async () => {
    const journal = createMemoryJournal();
    await record(journal, ["run_prev"]);
    await writeRun(journal, "run_prev", undefined);
    let slept = 0;
    const sleep = async () => {
      slept += 1;
      // The other run ends while this send waits.
      if (slept === 2)
        await journal.append({ tenantId: TENANT, runId: "run_prev" }, 1, [
          { type: "run.completed", at: 3, causationId: null, data: { outcome: { status: "completed" }, turns: 0 } },
        ]);
    };
    const result = await send(journal, { waitForSession: true, sleep });
    expect(slept).toBe(2);
    expect(result.state.continues?.map((pin) => pin.runId)).toEqual(["run_prev"]);
  });

  it("waitForSession: <ms> gives up SESSION_BUSY once that long has passed on the harness's clock", async () => {
    const journal = createMemoryJournal();
    await record(journal, ["run_prev"]);
    await writeRun(journal, "run_prev", undefined);
    const clock = steppingClock(0, 0);
    const sleeps: number[] = [];
    const sleep = async (ms: number) => {
      sleeps.push(ms);
      clock.advance(ms);
    };
    const error = await rejectionOf(send(journal, { waitForSession: 250, sleep, clock }));
    expect(YokeError.hasCode(error, "SESSION_BUSY")).toBe(true);
    expect(sleeps).toEqual([100, 100, 50]);
  });

  it("two sends at once in one process: one is recorded and runs, the other is SESSION_BUSY naming it", async () => {
    const journal = createMemoryJournal();
    const a = rig([say("a")], { journal, idStart: 100 }).harness.start("A", { sessionId: SESSION, runId: "run_a" });
    const b = rig([say("b")], { journal, idStart: 200 }).harness.start("B", { sessionId: SESSION, runId: "run_b" });
    const settled = await Promise.allSettled([a, b]);
    const done = settled.filter((entry) => entry.status === "fulfilled");
    const busy = settled.flatMap((entry) => (entry.status === "rejected" && YokeError.hasCode(entry.reason, "SESSION_BUSY") ? [entry.reason] : []));
    expect([done.length, busy.length]).toEqual([1, 1]);
    const winner = (await entries(journal))[0];
    expect(await entries(journal)).toEqual([winner]);
    expect(busy[0]!.details.runId).toBe(winner);
  });
});
