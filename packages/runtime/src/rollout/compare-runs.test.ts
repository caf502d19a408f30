import { createMemoryJournal } from "@yoke/journal";
import { sequentialIdSource, steppingClock, type YokeEvent } from "@yoke/protocol";
import { callTools, createScriptedModel, say, type ScriptedStep } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { createHarness } from "../harness.js";
import { TENANT, countingTool, instantSleep } from "../__fixtures__/harness-fixtures.js";
import { compareRuns } from "./compare-runs.js";
import { argumentsDigest } from "./recorded-outcomes.js";

/** Runs `steps` on a fresh harness whose clock steps `stepMs` per reading, and returns the run's events. */
async function runOf(steps: readonly ScriptedStep[], stepMs = 0): Promise<YokeEvent[]> {
  const harness = createHarness({
    journal: createMemoryJournal(),
    provider: createScriptedModel(steps),
    tools: [countingTool("store", "idempotent").tool, countingTool("lookup", "none").tool],
    tenantId: TENANT,
    clock: steppingClock(1_000, stepMs),
    ids: sequentialIdSource(),
    sleep: instantSleep,
  });
  const { runId } = await harness.start("go");
  const events: YokeEvent[] = [];
  for await (const event of harness.events(runId)) events.push(event);
  return events;
}

const usage = { inputTokens: 100, outputTokens: 10 };

describe("compareRuns", () => {
  it("pairs calls by tool and arguments, not by position: a reordered batch is the same decisions", async () => {
    const primary = await runOf([
      callTools([
        { name: "store", args: { key: "a" } },
        { name: "lookup", args: { key: "b" } },
      ]),
      say("done"),
    ]);
    const candidate = await runOf([
      callTools([
        { name: "lookup", args: { key: "b" } },
        { name: "store", args: { key: "a" } },
      ]),
      say("done"),
    ]);
    const report = compareRuns(primary, candidate);
    expect(report.sameDecisions).toBe(2);
    expect(report.differences).toEqual([]);
    expect(report.outcomeDiffers).toBe(false);
  });

  it("a call only one run made is a difference with the other side absent, and the n-th repeat pairs with the n-th", async () => {
    const primary = await runOf([callTools([{ name: "store", args: { key: "a" } }]), callTools([{ name: "store", args: { key: "a" } }]), say("done")]);
    const candidate = await runOf([callTools([{ name: "store", args: { key: "a" } }]), callTools([{ name: "nope", args: {} }]), say("done")]);
    const report = compareRuns(primary, candidate);
    expect(report.sameDecisions).toBe(1);
    expect(report.differences).toEqual([
      {
        toolName: "store",
        argumentsDigest: argumentsDigest({ key: "a" }),
        fields: ["decision", "rule", "policy", "code", "outcome"],
        primary: {
          turn: 2,
          toolName: "store",
          argumentsDigest: argumentsDigest({ key: "a" }),
          decision: "admitted",
          rule: expect.any(String),
          outcome: "committed",
        },
      },
      {
        toolName: "nope",
        argumentsDigest: argumentsDigest({}),
        fields: ["decision", "rule", "policy", "code", "outcome"],
        candidate: { turn: 2, toolName: "nope", argumentsDigest: argumentsDigest({}), decision: "refused", code: "TOOL_UNKNOWN" },
      },
    ]);
  });

  it("spend is the responses' usage, latency the runs' clocks (each its own)", async () => {
    const primary = await runOf(
      [
        { ...callTools([{ name: "lookup", args: { key: "a" } }]), usage },
        { ...say("done"), usage },
      ],
      0,
    );
    const candidate = await runOf([{ ...say("done without looking"), usage }], 10);
    const report = compareRuns(primary, candidate);
    expect(report.primary.spend).toMatchObject({ inputTokens: 200, outputTokens: 20 });
    expect(report.candidate?.spend).toMatchObject({ inputTokens: 100, outputTokens: 10 });
    expect(report.primary.latency.elapsedMs).toBe(0);
    expect(report.candidate?.latency.elapsedMs).toBeGreaterThan(0);
    expect(report.primary.turns).toBe(2);
    expect(report.candidate?.turns).toBe(1);
    expect(report.differences.map((difference) => [difference.toolName, difference.candidate])).toEqual([["lookup", undefined]]);
  });
});
