import { parseYokeEvent, type VerifierInput, type VerifierV1, type YokeEvent } from "@yoke/protocol";
import { say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { readAll, rig } from "./__fixtures__/harness-fixtures.js";
import type { RunResult, WaitingRunResult } from "./harness-types.js";

async function journaled(journal: Parameters<typeof readAll>[0], runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

/** A verifier whose first run throws (the process "dies" mid-verifier), later runs pass. */
function flakyVerifier(replaySafe: boolean, runs: { count: number }): VerifierV1 {
  return {
    specificationVersion: "v1",
    id: "deploy-check",
    kind: "command",
    replaySafe,
    async verify() {
      runs.count += 1;
      if (runs.count === 1) throw new Error("the verifier's process was killed");
      return { verifierId: "deploy-check", kind: "command", passed: true };
    },
  };
}

/** Issue 15, point 2 (the runtime's gate). */
describe("the verifier gate", () => {
  it("gives each verifier the run's events, the answer and the workspace; all must pass, in order, the first failure stops the gate", async () => {
    const inputs: VerifierInput[] = [];
    const order: string[] = [];
    const verifier = (id: string, passed: boolean): VerifierV1 => ({
      specificationVersion: "v1",
      id,
      kind: "invariant",
      replaySafe: true,
      async verify(input) {
        inputs.push(input);
        order.push(id);
        return passed ? { verifierId: id, kind: "invariant", passed } : { verifierId: id, kind: "invariant", passed, reason: "no receipt cited", retry: false };
      },
    });
    const { harness } = rig([say("answer [action:x]")], {
      verifiers: [verifier("first", true), verifier("second", false), verifier("third", true)],
      workspace: "/srv/checkout",
    });
    const { outcome } = await harness.start("t");
    expect(outcome).toEqual({ status: "verification_failed", reason: "no receipt cited" });
    expect(order).toEqual(["first", "second"]);
    expect(inputs[0]!.workspace).toBe("/srv/checkout");
    expect(inputs[0]!.answer.text).toBe("answer [action:x]");
    expect(inputs[0]!.events[0]!.type).toBe("run.started");
    // The second verifier sees the first one's verdict in the journal.
    expect(inputs[1]!.events.some((event) => event.type === "verifier.finished")).toBe(true);
  });

  it("a crash mid-verifier: a replay-safe verifier runs again on resume", async () => {
    const runs = { count: 0 };
    const first = rig([say("done")], { verifiers: flakyVerifier(true, runs) });
    await expect(first.harness.start("t", { runId: "run_safe" })).rejects.toThrow("killed");
    const events = await journaled(first.journal, "run_safe");
    expect(events.filter((event) => event.type === "verifier.started")).toHaveLength(1);
    expect(events.filter((event) => event.type === "verifier.finished")).toHaveLength(0);
    const second = rig([], { journal: first.journal, idStart: 100, verifiers: flakyVerifier(true, runs) });
    expect((await second.harness.resume("run_safe")).outcome).toEqual({ status: "verified_success" });
    expect(runs.count).toBe(2);
  });

  it("a crash mid-verifier: a verifier that is not replay-safe is never run again; the run escalates (waits for a person)", async () => {
    const runs = { count: 0 };
    const first = rig([say("done")], { verifiers: flakyVerifier(false, runs) });
    await expect(first.harness.start("t", { runId: "run_unsafe" })).rejects.toThrow("killed");
    const second = rig([], { journal: first.journal, idStart: 100, verifiers: flakyVerifier(false, runs) });
    const result = (await second.harness.resume("run_unsafe")) as RunResult | WaitingRunResult;
    expect(runs.count).toBe(1);
    expect(result.waiting).toMatchObject({ kind: "human", reason: "escalation" });
    expect(result.waiting?.kind === "human" && result.waiting.detail).toContain("verifier deploy-check was cut short");
    expect(second.journal.appends).toEqual([["run.waiting"]]);
  });

  it("a finished verdict is never asked again on resume: only the verifiers after it run", async () => {
    const ran: string[] = [];
    let crash = true;
    const make = (id: string): VerifierV1 => ({
      specificationVersion: "v1",
      id,
      kind: "check",
      replaySafe: false,
      async verify() {
        ran.push(id);
        if (id === "b" && crash) {
          crash = false;
          throw new Error("killed");
        }
        return { verifierId: id, kind: "check", passed: true };
      },
    });
    const first = rig([say("done")], { verifiers: [make("a"), make("b")] });
    await expect(first.harness.start("t", { runId: "run_ab" })).rejects.toThrow("killed");
    // "b" is not replay-safe and was cut short: escalation, and "a" is not asked again.
    const second = rig([], { journal: first.journal, idStart: 100, verifiers: [make("a"), make("b")] });
    const result = (await second.harness.resume("run_ab")) as RunResult | WaitingRunResult;
    expect(result.waiting).toMatchObject({ reason: "escalation" });
    expect(ran).toEqual(["a", "b"]);
  });

  it("rejects malformed verifier options with CONFIG_INVALID", () => {
    expect(() => rig([], { verifiers: [{ id: "x" } as unknown as VerifierV1] })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => rig([], { verifierRetries: -1 })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => rig([], { loopDetection: { threshold: 1 } })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});
