import { createMemoryJournal } from "@yoke/journal";
import { YokeError, type Clock, type JournalV1, type RunLeasesV1, type RunScope } from "@yoke/protocol";
import { refuse, rejectionOf, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { TENANT, crashingJournal, readAll, rig } from "../__fixtures__/harness-fixtures.js";
import { runWorker, type WorkerHarnessFactory } from "./run-worker.js";
import { scanRuns } from "./run-verdicts.js";

function manualClock(start = 1_000) {
  let now = start;
  const clock: Clock = { specificationVersion: "v1", now: () => now };
  return { clock, advance: (ms: number) => (now += ms) };
}

const scopeOf = (runId: string): RunScope => ({ tenantId: TENANT, runId });
const TTL = 30_000;

/** A process that dies after its first append: its next append is written, then it is gone, its lease never released. */
async function crashedRun(journal: JournalV1 & { leases: RunLeasesV1 }, clock: Clock, runId: string): Promise<void> {
  const leases: RunLeasesV1 = { ...journal.leases, release: async () => undefined };
  const dying = { ...crashingJournal(journal, 1, "written"), leases };
  const { harness } = rig([say("done")], { journal: dying, clock, lease: { ttlMs: TTL, ownerId: "dead-owner", ownerIsGone: () => false } });
  expect((await rejectionOf(harness.start("t", { runId }))).code).toBe("INTERNAL");
}

/** The worker's factory: a harness on the journal it is handed, whose model finishes the run. */
function finishing(clock: Clock, built: string[] = []): WorkerHarnessFactory {
  return ({ journal, runId }) => {
    built.push(runId);
    return rig([say("done")], { journal, clock, lease: { ttlMs: TTL, ownerId: "worker" } }).harness;
  };
}

describe("runWorker: resumes runs whose owner is gone", () => {
  it("takes a crashed run once its lease lapses, drives it to its outcome exactly once, and never a live owner's run", async () => {
    const time = manualClock();
    const journal = createMemoryJournal({ clock: time.clock });
    await crashedRun(journal, time.clock, "run_crashed");
    const crashedLength = (await journal.head(scopeOf("run_crashed")))!.length;

    // The dead owner's lease is still live on the store's clock: not taken yet, nothing written.
    const early = await runWorker({ journal, tenants: [TENANT], harness: finishing(time.clock), once: true });
    expect(early.runs).toEqual([{ ...scopeOf("run_crashed"), result: "owned_elsewhere", appended: 0 }]);
    expect((await journal.head(scopeOf("run_crashed")))!.length).toBe(crashedLength);

    time.advance(TTL);
    const late = await runWorker({ journal, tenants: [TENANT], harness: finishing(time.clock), once: true });
    expect(late.runs).toEqual([{ ...scopeOf("run_crashed"), result: "resumed", appended: expect.any(Number), outcome: "completed" }]);
    expect(late.runs[0]!.appended).toBeGreaterThan(0);
    const events = await readAll(journal, "run_crashed");
    expect(events.filter((event) => event.type === "run.completed")).toHaveLength(1);
    expect(events.filter((event) => event.type === "model.responded")).toHaveLength(1);

    // Finished: a later scan passes over it without building a harness.
    const built: string[] = [];
    expect((await runWorker({ journal, tenants: [TENANT], harness: finishing(time.clock, built), once: true })).runs).toEqual([]);
    expect(built).toEqual([]);
  });

  it("passes over a run whose owner is alive (a live lease), however long the worker scans", async () => {
    const time = manualClock();
    const journal = createMemoryJournal({ clock: time.clock });
    await crashedRun(journal, time.clock, "run_alive");
    // Another process took the run over and is driving it: its lease is live.
    await journal.leases.acquire(scopeOf("run_alive"), { ownerId: "alive", ttlMs: 10 * TTL, ownerIsGone: () => true });
    const length = (await journal.head(scopeOf("run_alive")))!.length;
    for (let scan = 0; scan < 3; scan++) {
      const summary = await runWorker({ journal, tenants: [TENANT], harness: finishing(time.clock), once: true });
      expect(summary.runs.map((run) => run.result)).toEqual(["owned_elsewhere"]);
      time.advance(TTL);
    }
    expect((await journal.head(scopeOf("run_alive")))!.length).toBe(length);
  });

  it("passes over a run owned elsewhere until its lease would lapse (on the store's remaining time), building no harness meanwhile", async () => {
    const time = manualClock();
    const journal = createMemoryJournal({ clock: time.clock });
    await crashedRun(journal, time.clock, "run_held");
    await journal.leases.acquire(scopeOf("run_held"), { ownerId: "alive", ttlMs: 5 * TTL, ownerIsGone: () => true });
    const built: string[] = [];
    const stop = new AbortController();
    let sleeps = 0;
    const summary = await runWorker({
      journal,
      tenants: [TENANT],
      harness: finishing(time.clock, built),
      intervalMs: TTL,
      clock: time.clock,
      ownerIsGone: () => false,
      signal: stop.signal,
      sleep: async (ms) => {
        time.advance(ms);
        sleeps += 1;
        if (sleeps === 7) stop.abort();
      },
    });
    // Seven scans: the first meets the live lease, the next four pass over the run without a harness, the sixth takes it.
    expect(summary.scans).toBe(7);
    expect(built).toEqual(["run_held", "run_held"]);
    expect(summary.runs.map((run) => run.result)).toEqual(["owned_elsewhere", "resumed"]);
  });

  it("scans verdicts: finished, waiting for a person, never leased and resumable runs are told apart", async () => {
    const time = manualClock();
    const journal = createMemoryJournal({ clock: time.clock });
    await rig([say("done")], { journal, clock: time.clock, lease: { ttlMs: TTL, ownerId: "a" } }).harness.start("t", { runId: "run_done" });
    await rig([refuse("no")], { journal, clock: time.clock, lease: { ttlMs: TTL, ownerId: "b" } }).harness.start("t", { runId: "run_waits" });
    await rig([say("done")], { journal: crashingJournal(journal, 1, "written"), clock: time.clock, lease: false })
      .harness.start("t", { runId: "run_unleased" })
      .catch(() => undefined);
    await crashedRun(journal, time.clock, "run_crashed");
    const verdicts = Object.fromEntries((await scanRuns(journal, [TENANT])).map((run) => [run.runId, run.verdict]));
    expect(verdicts).toEqual({ run_done: "finished", run_waits: "waiting", run_unleased: "never_owned", run_crashed: "resumable" });
    time.advance(TTL);
    const summary = await runWorker({ journal, tenants: [TENANT], harness: finishing(time.clock), once: true });
    expect(summary.runs.map((run) => [run.runId, run.result])).toEqual([["run_crashed", "resumed"]]);
  });

  it("resumes at most `concurrency` runs at once, and a stop lets the runs in hand finish before it resolves", async () => {
    const time = manualClock();
    const journal = createMemoryJournal({ clock: time.clock });
    for (const runId of ["run_a", "run_b", "run_c"]) await crashedRun(journal, time.clock, runId);
    let active = 0;
    let most = 0;
    const gates: (() => void)[] = [];
    const stop = new AbortController();
    const sleeps: number[] = [];
    const harness: WorkerHarnessFactory = () => ({
      async resume() {
        active += 1;
        most = Math.max(most, active);
        await new Promise<void>((resolve) => gates.push(resolve));
        active -= 1;
        return { outcome: { status: "completed" } as never };
      },
    });
    let resolved = false;
    const worker = runWorker({
      journal,
      tenants: () => [TENANT],
      harness,
      concurrency: 2,
      intervalMs: 1_234,
      sleep: async (ms) => {
        sleeps.push(ms);
        stop.abort();
      },
      signal: stop.signal,
    }).then((summary) => {
      resolved = true;
      return summary;
    });
    // Two in hand; the third waits for a slot.
    await until(() => gates.length === 2);
    expect(most).toBe(2);
    gates.shift()!();
    await until(() => gates.length === 2);
    // It slept its interval, was stopped there, and waits for the two runs still in hand.
    await until(() => sleeps.length === 1);
    expect(sleeps).toEqual([1_234]);
    expect(resolved).toBe(false);
    for (const gate of gates.splice(0)) gate();
    const summary = await worker;
    expect(summary.scans).toBe(1);
    expect(summary.runs.map((run) => run.runId).sort()).toEqual(["run_a", "run_b", "run_c"]);
    expect(most).toBe(2);
  });

  it("refuses what cannot work, typed: a journal without leases, a harness object for several tenants, a bad concurrency", async () => {
    const journal = createMemoryJournal();
    const { leases: _leases, ...leaseless } = journal;
    const factory: WorkerHarnessFactory = () => ({ resume: async () => ({}) });
    const cases: [Parameters<typeof runWorker>[0], string][] = [
      [
        { journal: leaseless as JournalV1, tenants: [TENANT], harness: factory },
        "journal must offer leases (journal.leases): a worker without them could resume a run twice",
      ],
      [
        { journal, tenants: ["a", "b"], harness: { resume: async () => ({}) } },
        "a harness object resumes runs of its own tenant: pass exactly that tenant in tenants, or pass a factory",
      ],
      [{ journal, tenants: [TENANT], harness: factory, concurrency: 0 }, "concurrency must be a positive integer"],
      [{ journal, tenants: [TENANT], harness: 42 as never }, "harness must be a factory ({ journal, tenantId, runId, logger }) => harness, or a harness"],
    ];
    for (const [options, problem] of cases) {
      const error = await rejectionOf(runWorker(options));
      expect(YokeError.isInstance(error) && error.code).toBe("CONFIG_INVALID");
      expect(error.details).toEqual({ problems: [problem] });
    }
  });
});

/** Lets the worker's promises run until `condition` holds (no timers: microtasks and I/O only). */
async function until(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 10_000 && !condition(); turn++) await new Promise<void>((resolve) => setImmediate(resolve));
  expect(condition()).toBe(true);
}
