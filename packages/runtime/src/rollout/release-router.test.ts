import { createMemoryJournal } from "@yoke/journal";
import { sequentialIdSource, steppingClock, type JournalV1, type YokeEvent } from "@yoke/protocol";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { TENANT, countingTool, instantSleep } from "../__fixtures__/harness-fixtures.js";
import { functionEngine } from "../__fixtures__/policy-fixtures.js";
import { createReleaseRouter, releaseTarget, type ReleaseTarget } from "./release-router.js";
import { stableFraction } from "./stable-share.js";

async function eventsOf(events: AsyncIterable<YokeEvent>): Promise<YokeEvent[]> {
  const all: YokeEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const CURRENT = "app@1.0.0";
const CANDIDATE = "app@1.1.0-rc.1";

/** Two releases on one journal and tenant (a canary's runs are real runs), each with its own model and ids. */
function releases(journal: JournalV1 = createMemoryJournal(), steps = () => [say("done")]) {
  const build = (runtimeVersion: string, idStart: number) => {
    const model = createScriptedModel(steps(), { modelId: runtimeVersion });
    const store = countingTool("store", "idempotent");
    const target = releaseTarget({
      journal,
      provider: model,
      tools: [store.tool],
      tenantId: TENANT,
      clock: steppingClock(1_000, 0),
      ids: sequentialIdSource(idStart),
      sleep: instantSleep,
      runtimeVersion,
      // Every store call waits for a person, so a run stays in flight.
      policy: functionEngine(() => ["require_approval", "ask-first"]),
    });
    return { target, model, stores: store.calls };
  };
  return { current: build(CURRENT, 1), candidate: build(CANDIDATE, 1_000) };
}

/**
 * The largest deviation from n·p a fair hash shows with probability below about 1e-5: z = 4.42
 * standard deviations of the binomial (two-sided normal tail 1e-5), plus one for rounding.
 */
function tolerance(n: number, p: number): number {
  return 4.42 * Math.sqrt(n * p * (1 - p)) + 1;
}

describe("createReleaseRouter: new runs", () => {
  it("the same key always goes the same way, and the share of keys that go to the candidate is the share asked for", () => {
    const { current, candidate } = releases();
    const n = 20_000;
    for (const share of [0.01, 0.1, 0.5, 0.9]) {
      const router = createReleaseRouter({ current: current.target, candidate: candidate.target, share });
      let toCandidate = 0;
      for (let index = 0; index < n; index += 1) {
        const key = `session_${index}`;
        const release = router.releaseFor(key);
        expect(router.releaseFor(key)).toBe(release);
        if (release === "candidate") toCandidate += 1;
      }
      expect(Math.abs(toCandidate - n * share)).toBeLessThanOrEqual(tolerance(n, share));
    }
  });

  it("share 0 sends no key to the candidate, share 1 every key; raising the share never moves a key back", () => {
    const { current, candidate } = releases();
    const router = createReleaseRouter({ current: current.target, candidate: candidate.target, share: 0 });
    const keys = Array.from({ length: 2_000 }, (_, index) => `run_${index}`);
    expect(keys.filter((key) => router.releaseFor(key) === "candidate")).toEqual([]);
    router.setShare(0.3);
    const atThirty = keys.filter((key) => router.releaseFor(key) === "candidate");
    router.setShare(0.6);
    const atSixty = new Set(keys.filter((key) => router.releaseFor(key) === "candidate"));
    expect(atThirty.every((key) => atSixty.has(key))).toBe(true);
    router.setShare(1);
    expect(keys.filter((key) => router.releaseFor(key) === "current")).toEqual([]);
  });

  it("a run is started by the release its key picks, and pins that release in run.started", async () => {
    const { current, candidate } = releases(createMemoryJournal(), () => Array.from({ length: 6 }, () => say("done")));
    const router = createReleaseRouter({ current: current.target, candidate: candidate.target, share: 0.5 });
    const sessions = Array.from({ length: 6 }, (_, index) => `session_${index}`);
    const expected = sessions.map((sessionId) => router.releaseFor(sessionId));
    // Both releases are exercised by these keys, or the test would prove nothing.
    expect(new Set(expected)).toEqual(new Set(["current", "candidate"]));
    for (const [index, sessionId] of sessions.entries()) {
      const result = await router.start("hello", { sessionId });
      expect(await router.pinnedTo(result.runId)).toBe(expected[index]);
      const started = (await eventsOf(router.events(result.runId)))[0];
      expect(started?.type === "run.started" && started.data.release.runtime).toBe(expected[index] === "current" ? CURRENT : CANDIDATE);
    }
    expect(candidate.model.calls).toHaveLength(expected.filter((release) => release === "candidate").length);
    expect(current.model.calls).toHaveLength(expected.filter((release) => release === "current").length);
  });

  it("without a key, the router draws the run id and routes by it", async () => {
    const { current, candidate } = releases();
    const router = createReleaseRouter({ current: current.target, candidate: candidate.target, share: 1, ids: sequentialIdSource(7) });
    const result = await router.start("hello");
    expect(result.runId).toBe("run_00000000000007");
    expect(await router.pinnedTo(result.runId)).toBe("candidate");
    expect(candidate.model.calls).toHaveLength(1);
  });
});

describe("createReleaseRouter: existing runs and rollback", () => {
  it("after setShare(0), new runs go to the current release while a candidate run in flight is approved and resumed by the candidate", async () => {
    const steps = () => [callTools([{ name: "store", args: { key: "k" } }]), say("stored")];
    const { current, candidate } = releases(createMemoryJournal(), steps);
    const router = createReleaseRouter({ current: current.target, candidate: candidate.target, share: 1 });
    const inFlight = await router.start("store k", { runId: "run_canary" });
    expect(inFlight.waiting?.kind).toBe("approval");
    const approvalId = [...(await router.getState("run_canary")).approvals.keys()][0]!;

    router.setShare(0);
    const fresh = await router.start("store k", { runId: "run_fresh" });
    expect(await router.pinnedTo(fresh.runId)).toBe("current");

    await router.approve("run_canary", approvalId, { approver: "ops@example.com" });
    const finished = await router.resume("run_canary");
    expect(finished.outcome?.status).toBe("completed");
    expect(candidate.stores).toHaveLength(1);
    expect(current.stores).toEqual([]);
    // Each release's model answered only its own runs: two calls for the canary, one for the fresh run.
    expect(candidate.model.calls).toHaveLength(2);
    expect(current.model.calls).toHaveLength(1);
  });

  it("a run pinned to neither release is RELEASE_INCOMPATIBLE naming the pinned release; an unknown run is RUN_NOT_FOUND", async () => {
    const journal = createMemoryJournal();
    const { current, candidate } = releases(journal);
    const old = releaseTarget({
      journal,
      provider: createScriptedModel([say("old")]),
      tenantId: TENANT,
      runtimeVersion: "app@0.9.0",
      ids: sequentialIdSource(500),
    });
    const { runId } = await old.harness.start("hello");
    const router = createReleaseRouter({ current: current.target, candidate: candidate.target, share: 0.5 });
    await expect(router.resume(runId)).rejects.toMatchObject({
      code: "RELEASE_INCOMPATIBLE",
      details: { runId, pinned: expect.objectContaining({ runtime: "app@0.9.0" }) },
    });
    await expect(router.resume("run_missing")).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
  });
});

describe("createReleaseRouter: bad input", () => {
  it("a share outside [0, 1] (or not a number) is CONFIG_INVALID, at creation and in setShare", () => {
    const { current, candidate } = releases();
    for (const share of [-0.01, 1.01, Number.NaN, Number.POSITIVE_INFINITY, "0.5" as unknown as number]) {
      expect(() => createReleaseRouter({ current: current.target, candidate: candidate.target, share })).toThrow(
        expect.objectContaining({ code: "CONFIG_INVALID", details: { option: "share" } }),
      );
    }
    const router = createReleaseRouter({ current: current.target, candidate: candidate.target, share: 0.2 });
    expect(() => router.setShare(2)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(router.share).toBe(0.2);
  });

  it("two releases the matching rule cannot tell apart are CONFIG_INVALID", () => {
    const { current } = releases();
    const twin: ReleaseTarget = { harness: current.target.harness, release: { runtime: CURRENT } };
    expect(() => createReleaseRouter({ current: current.target, candidate: twin, share: 0.1 })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});

describe("stableFraction", () => {
  it("is a pure function of the key, in [0, 1)", () => {
    expect(stableFraction("session_42")).toBe(stableFraction("session_42"));
    // The first 48 bits of SHA-256("") = e3b0c44298fc…, over 2^48.
    expect(stableFraction("")).toBe(0xe3b0c44298fc / 2 ** 48);
    for (let index = 0; index < 1_000; index += 1) {
      const fraction = stableFraction(`key_${index}`);
      expect(fraction >= 0 && fraction < 1).toBe(true);
    }
  });
});
