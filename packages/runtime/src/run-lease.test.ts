import { createMemoryJournal } from "@yoke/journal";
import { YokeError, type Clock, type RunScope } from "@yoke/protocol";
import { callTools, rejectionOf, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { TENANT, echoTool, readAll, rig } from "./__fixtures__/harness-fixtures.js";

/** One clock for the journal's lease expiry and the harness, moved only by the test (and by `sleep`). */
function manualClock(start = 1_000) {
  let now = start;
  const clock: Clock = { specificationVersion: "v1", now: () => now };
  return {
    clock,
    advance: (ms: number) => (now += ms),
    get now() {
      return now;
    },
  };
}

/** Timers that fire only when the test says so; `fire(ms)` runs the callbacks scheduled with that delay. */
function manualTimers() {
  const pending = new Set<{ callback: () => void; ms: number }>();
  return {
    timers: {
      setTimeout(callback: () => void, ms: number) {
        const handle = { callback, ms };
        pending.add(handle);
        return handle;
      },
      clearTimeout(handle: unknown) {
        pending.delete(handle as { callback: () => void; ms: number });
      },
    },
    fire(ms: number) {
      const due = [...pending].filter((handle) => handle.ms === ms);
      for (const handle of due) {
        pending.delete(handle);
        handle.callback();
      }
      return due.length;
    },
  };
}

const LEASE = { ttlMs: 30_000, renewEveryMs: 7_777, ownerId: "owner-test" };
const scopeOf = (runId: string): RunScope => ({ tenantId: TENANT, runId });

describe("run leases in the harness", () => {
  it("gives every tool call the fencing token of the run's lease, renews it while the run goes on and releases it at the end", async () => {
    const time = manualClock();
    const journal = createMemoryJournal({ clock: time.clock });
    const seen: { token: number | undefined; current: number | undefined }[] = [];
    const probe = defineTool({
      name: "probe",
      description: "Reports the fencing token it was given.",
      input: z.object({}),
      sideEffect: "idempotent",
      async execute(_input, context) {
        seen.push({ token: context.fencingToken, current: (await journal.leases.current(scopeOf("run_token")))?.token });
        return "ok";
      },
    });
    const { harness } = rig(
      [
        callTools([
          { name: "probe", args: {} },
          { name: "probe", args: {} },
        ]),
        say("done"),
      ],
      {
        journal,
        tools: [probe],
        clock: time.clock,
        lease: LEASE,
      },
    );
    // An earlier owner's released lease: the token only grows.
    const earlier = await journal.leases.acquire(scopeOf("run_token"), { ownerId: "earlier", ttlMs: 10 });
    await journal.leases.release(earlier);

    const result = await harness.start("probe twice", { runId: "run_token" });
    expect(result.outcome?.status).toBe("completed");
    expect(seen).toEqual([
      { token: earlier.token + 1, current: earlier.token + 1 },
      { token: earlier.token + 1, current: earlier.token + 1 },
    ]);
    // Released: another owner takes the run at once.
    const next = await journal.leases.acquire(scopeOf("run_token"), { ownerId: "next", ttlMs: 10 });
    expect(next.token).toBe(earlier.token + 2);
  });

  it("refuses a resume while another owner's lease is live, journaling nothing, and admits it once the lease lapses", async () => {
    const time = manualClock();
    const journal = createMemoryJournal({ clock: time.clock });
    const first = rig([say("done")], { journal, clock: time.clock, lease: LEASE });
    await first.harness.start("t", { runId: "run_held" });
    const events = (await readAll(journal, "run_held")).length;
    const other = await journal.leases.acquire(scopeOf("run_held"), { ownerId: "other-process", ttlMs: 5_000 });

    const second = rig([], { journal, clock: time.clock, lease: { ...LEASE, ownerId: "second" } });
    const error = await rejectionOf(second.harness.resume("run_held"));
    expect(error.code).toBe("RUN_LEASE_HELD");
    expect(error.retryable).toBe(true);
    expect(error.details).toMatchObject({ ownerId: "other-process", token: other.token, expiresAt: other.expiresAt });
    expect((await rejectionOf(second.harness.startOrResume("t", { runId: "run_held" }))).code).toBe("RUN_LEASE_HELD");
    expect((await readAll(journal, "run_held")).length).toBe(events);

    time.advance(5_000);
    expect((await second.harness.resume("run_held")).outcome?.status).toBe("completed");
  });

  it("waits for a live lease with waitForLease (until it lapses, or up to a bound)", async () => {
    const time = manualClock();
    const journal = createMemoryJournal({ clock: time.clock });
    await rig([say("done")], { journal, clock: time.clock, lease: LEASE }).harness.start("t", { runId: "run_wait" });
    const sleeps: number[] = [];
    const sleep = async (ms: number) => {
      sleeps.push(ms);
      time.advance(ms);
    };
    const waiter = rig([], { journal, clock: time.clock, sleep, lease: { ...LEASE, ownerId: "waiter" } });

    await journal.leases.acquire(scopeOf("run_wait"), { ownerId: "other-process", ttlMs: 20_000 });
    const bounded = await rejectionOf(waiter.harness.resume("run_wait", { waitForLease: 10_000 }));
    expect(bounded.code).toBe("RUN_LEASE_HELD");
    expect(sleeps.reduce((sum, ms) => sum + ms, 0)).toBe(10_000);

    sleeps.length = 0;
    expect((await waiter.harness.resume("run_wait", { waitForLease: true })).outcome?.status).toBe("completed");
    // It slept until the lease's expiry (10 s were left), a renewal period at a time.
    expect(sleeps).toEqual([7_777, 2_223]);
  });

  it("waits on the store's time, not its own clock: a harness whose clock runs 60 s ahead sleeps until the lease lapses", async () => {
    const store = manualClock();
    const journal = createMemoryJournal({ clock: store.clock });
    const ahead: Clock = { specificationVersion: "v1", now: () => store.now + 60_000 };
    await rig([say("done")], { journal, clock: ahead, lease: LEASE }).harness.start("t", { runId: "run_skewed" });
    await journal.leases.acquire(scopeOf("run_skewed"), { ownerId: "other-process", ttlMs: 20_000 });
    const sleeps: number[] = [];
    const sleep = async (ms: number) => {
      sleeps.push(ms);
      store.advance(ms);
    };
    const waiter = rig([], { journal, clock: ahead, sleep, lease: { ...LEASE, ownerId: "waiter" } });
    expect((await waiter.harness.resume("run_skewed", { waitForLease: true })).outcome?.status).toBe("completed");
    expect(sleeps).toEqual([7_777, 7_777, 4_446]);
  });

  it("stops a run whose lease was taken over: the tool's signal aborts and the old owner appends nothing more", async () => {
    const time = manualClock();
    const journal = createMemoryJournal({ clock: time.clock });
    const clock = manualTimers();
    let thiefToken = 0;
    let aborted: unknown;
    const slow = defineTool({
      name: "slow",
      description: "Runs until its signal aborts.",
      input: z.object({}),
      sideEffect: "irreversible",
      async execute(_input, context) {
        // Another process decides this one is gone and takes the run over mid-call.
        thiefToken = (await journal.leases.acquire(scopeOf("run_stolen"), { ownerId: "thief", ttlMs: 60_000, ownerIsGone: () => true })).token;
        expect(clock.fire(LEASE.renewEveryMs)).toBe(1);
        await new Promise((_resolve, reject) =>
          context.signal.addEventListener("abort", () => {
            aborted = context.signal.reason;
            reject(context.signal.reason);
          }),
        );
        return "unreachable";
      },
    });
    const { harness } = rig([callTools([{ name: "slow", args: {} }]), say("done")], {
      journal,
      tools: [slow],
      clock: time.clock,
      timers: clock.timers,
      lease: LEASE,
    });
    const error = await rejectionOf(harness.start("t", { runId: "run_stolen" }));
    expect(error.code).toBe("RUN_LEASE_LOST");
    expect(YokeError.hasCode(aborted, "RUN_LEASE_LOST")).toBe(true);
    const events = await readAll(journal, "run_stolen");
    // The call's admission (journaled with the response) is the old owner's last event: no
    // failure, uncertainty or result of the aborted call — the new owner reconciles it.
    expect(events.at(-1)!.type).toBe("action.admitted");
    expect(await journal.leases.current(scopeOf("run_stolen"))).toMatchObject({ ownerId: "thief", token: thiefToken });
  });

  it("refuses the old owner's append when its lease was taken over between two appends", async () => {
    const time = manualClock();
    const journal = createMemoryJournal({ clock: time.clock });
    const thief = defineTool({
      name: "steal",
      description: "Lets another process take the run over, then returns.",
      input: z.object({}),
      sideEffect: "none",
      async execute() {
        await journal.leases.acquire(scopeOf("run_fenced"), { ownerId: "thief", ttlMs: 60_000, ownerIsGone: () => true });
        return "done stealing";
      },
    });
    const { harness } = rig([callTools([{ name: "steal", args: {} }]), say("done")], { journal, tools: [thief], clock: time.clock, lease: LEASE });
    const error = await rejectionOf(harness.start("t", { runId: "run_fenced" }));
    expect(error.code).toBe("RUN_LEASE_LOST");
    expect(error.details).toMatchObject({ currentOwnerId: "thief" });
    expect((await readAll(journal, "run_fenced")).some((event) => event.type === "tool.completed")).toBe(false);
  });

  it("startOrResume starts a run the journal does not hold and resumes one it does", async () => {
    const time = manualClock();
    const journal = createMemoryJournal({ clock: time.clock });
    const started = await rig([say("done")], { journal, clock: time.clock, lease: LEASE }).harness.startOrResume("t", { runId: "run_either" });
    expect(started.outcome?.status).toBe("completed");
    const events = await readAll(journal, "run_either");
    const resumed = await rig([], { journal, clock: time.clock, lease: LEASE }).harness.startOrResume("a different task", { runId: "run_either" });
    expect(resumed.outcome?.status).toBe("completed");
    expect(await readAll(journal, "run_either")).toEqual(events);
    expect((await rejectionOf(rig([], { journal }).harness.startOrResume("t", {} as { runId: string }))).code).toBe("CONFIG_INVALID");
  });

  it("takes no lease with lease: false", async () => {
    const journal = createMemoryJournal();
    const tokens: (number | undefined)[] = [];
    const probe = defineTool({
      name: "probe",
      description: "Reports the fencing token it was given.",
      input: z.object({}),
      sideEffect: "none",
      execute: async (_input, context) => {
        tokens.push(context.fencingToken);
        return "ok";
      },
    });
    await rig([callTools([{ name: "probe", args: {} }]), say("done")], { journal, tools: [probe, echoTool], lease: false }).harness.start("t", {
      runId: "run_free",
    });
    expect(tokens).toEqual([undefined]);
    expect(await journal.leases.current(scopeOf("run_free"))).toBeNull();
  });

  it("validates its lease options with CONFIG_INVALID", () => {
    const journal = createMemoryJournal();
    for (const lease of [{ ttlMs: 0 }, { ttlMs: 1.5 }, { ttlMs: 100, renewEveryMs: 100 }, { ttlMs: 100, renewEveryMs: 0 }, { ownerId: "" }]) {
      expect(() => rig([], { journal, lease }), JSON.stringify(lease)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    }
  });
});
