// Each fault of the testkit's tool simulators, injected at the tool boundary of a real
// harness: what the journal says and what the effect ledger counts.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseYokeEvent, type JournalEvent } from "@yoke/protocol";
import type { Timers } from "@yoke/scheduler";
import {
  callTools,
  createEffectLedger,
  referenceScenario,
  say,
  simulatedTool,
  summarizeActions,
  type EffectLedger,
  type SimulatedToolOptions,
} from "@yoke/testkit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readAll, rig } from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";

/** Deadlines fire on the next turn of the event loop: a handler that waits for its signal is cut at once, no clock involved. */
const instantTimers: Timers = {
  setTimeout: (callback) => setImmediate(callback),
  clearTimeout: (handle) => clearImmediate(handle as ReturnType<typeof setImmediate>),
};

let dir: string;
let ledger: EffectLedger;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "yoke-faults-"));
  ledger = createEffectLedger(join(dir, "ledger.jsonl"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const types = (events: JournalEvent[]) => events.map((event) => event.type);

async function runOne(options: Omit<SimulatedToolOptions, "ledger" | "name">, extra: SimulatedToolOptions[] = []) {
  const tool = defineTool(simulatedTool({ name: "effect", ledger, ...options }));
  const others = extra.map((entry) => defineTool(simulatedTool(entry)));
  const calls = [
    { name: "effect", args: { resource: "thing:1", value: "v" } },
    ...extra.map((entry) => ({ name: entry.name, args: { resource: `${entry.name}:1`, value: "v" } })),
  ];
  const { harness, journal } = rig([callTools(calls), say("done")], { tools: [tool, ...others], timers: instantTimers });
  const result = await harness.start("t");
  const events = await readAll(journal, result.runId);
  return { result, events, summary: summarizeActions(events), appends: journal.appends };
}

describe("applied, ack lost, at the tool boundary", () => {
  it("0 blind retries: every lost acknowledgement goes through uncertain and is reconciled", async () => {
    const faults = { warm_cache: ["ack-lost"], charge_card: ["ack-lost"], book_hotel: ["ack-lost"], book_car: ["ack-lost"] } as const;
    const clean = referenceScenario(createEffectLedger(join(dir, "clean.jsonl")));
    const reference = rig(clean.steps(), { tools: clean.tools.map((tool) => defineTool(tool)) });
    await reference.harness.start(clean.task);

    const scenario = referenceScenario(ledger, { ...faults });
    const { harness, journal } = rig(scenario.steps(), { tools: scenario.tools.map((tool) => defineTool(tool)) });
    const result = await harness.start(scenario.task);
    expect(result.outcome?.status).toBe("completed");
    const events = await readAll(journal, result.runId);
    const summary = summarizeActions(events);
    // 4 injections, 4 uncertain actions, 4 reconciliations; only the idempotent one re-ran.
    expect(summary.uncertain.map((action) => [action.toolName, action.resolution])).toEqual([
      ["warm_cache", "retry_safe"],
      ["charge_card", "applied"],
      ["book_hotel", "applied"],
      ["book_car", "applied"],
    ]);
    expect(summary.silentRetries).toBe(0);
    expect(ledger.duplicates()).toBe(0);
    expect(ledger.netState()).toEqual(createEffectLedger(join(dir, "clean.jsonl")).netState());
    expect(summary.finalStates).toEqual([
      "warm_cache: committed",
      "charge_card: committed",
      "book_hotel: compensated",
      "book_car: compensated",
      "book_flight: failed",
    ]);
  });
});

describe("tool simulators", () => {
  it("timeout-after-commit: the deadline leaves it uncertain; the reconciler finds it applied; not re-run", async () => {
    const { result, summary, events } = await runOne({ sideEffect: "irreversible", reconcile: true, faults: ["timeout-after-commit"] });
    expect(result.outcome?.status).toBe("completed");
    expect(summary.uncertain).toMatchObject([{ resolution: "applied" }]);
    expect(ledger.entries()).toHaveLength(1);
    // Attempt 1 is leased by action.admitted; no action.leased means no second attempt.
    expect(types(events).filter((type) => type === "action.admitted")).toHaveLength(1);
    expect(types(events).filter((type) => type === "action.leased")).toHaveLength(0);
  });

  it("timeout-before-commit: uncertain, reconciled not_applied, applied once by attempt 2", async () => {
    const { result, summary } = await runOne({ sideEffect: "irreversible", reconcile: true, faults: ["timeout-before-commit"] });
    expect(result.outcome?.status).toBe("completed");
    expect(summary.uncertain).toMatchObject([{ resolution: "not_applied" }]);
    expect(ledger.entries()).toHaveLength(1);
    expect(summary.silentRetries).toBe(0);
  });

  it("an irreversible tool without a reconciler: the run escalates naming the action, the effect is not repeated", async () => {
    const { result, events } = await runOne({ sideEffect: "irreversible", faults: ["timeout-after-commit"] });
    const admitted = events.map(parseYokeEvent).find((event) => event.type === "action.admitted");
    expect(result.outcome).toMatchObject({ status: "escalated", actionId: admitted?.type === "action.admitted" ? admitted.data.actionId : "" });
    expect(ledger.entries()).toHaveLength(1);
  });

  it("duplicate-receipt: the service returns the first receipt; one effect", async () => {
    const { result, events } = await runOne({ sideEffect: "idempotent", faults: ["duplicate-receipt"] });
    expect(result.outcome?.status).toBe("completed");
    expect(ledger.entries()).toHaveLength(1);
    const committed = events.map(parseYokeEvent).find((event) => event.type === "action.committed");
    expect(committed?.type === "action.committed" && committed.data.result.output).toEqual({ duplicate: true });
  });

  it("partial-stream on a read: a retryable failure, retried as attempt 2 in its own commit", async () => {
    const { result, appends } = await runOne({ sideEffect: "none", faults: ["partial-stream"] });
    expect(result.outcome?.status).toBe("completed");
    expect(appends).toContainEqual(["action.failed", "action.leased", "action.executing"]);
    expect(ledger.entries()).toEqual([]); // a read leaves the world as it was
  });

  it("stale-revision: a definite failure, so the batch's committed reversible effects are compensated", async () => {
    const { result, summary } = await runOne({ sideEffect: "irreversible", faults: ["stale-revision"] }, [
      { name: "reserve", sideEffect: "reversible", ledger, compensate: "works" },
    ]);
    expect(result.outcome?.status).toBe("completed");
    expect(summary.finalStates).toEqual(["effect: failed", "reserve: compensated"]);
    expect(ledger.netState()).toEqual({ "reserve:1": null });
  });

  it("compensation failure: the run escalates naming the action whose compensation failed", async () => {
    const { result, events } = await runOne({ sideEffect: "irreversible", faults: ["fail"] }, [
      { name: "reserve", sideEffect: "reversible", ledger, compensate: "fails" },
    ]);
    const failed = events.map(parseYokeEvent).find((event) => event.type === "action.compensation_failed");
    expect(failed).toBeDefined();
    expect(result.outcome).toMatchObject({ status: "escalated", actionId: failed?.type === "action.compensation_failed" ? failed.data.actionId : "" });
    expect(ledger.netState()).toEqual({ "reserve:1": "v" });
  });
});
