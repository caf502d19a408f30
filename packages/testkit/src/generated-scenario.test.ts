import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createEffectLedger } from "./effect-ledger.js";
import { generatedScenario } from "./generated-scenario.js";
import type { ScriptedStep, ScriptedToolCallPart } from "./scripted-model-steps.js";

const dir = mkdtempSync(join(tmpdir(), "yoke-generated-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ledger = createEffectLedger(join(dir, "ledger.jsonl"));

const toolCalls = (steps: readonly ScriptedStep[]): ScriptedToolCallPart[] =>
  steps.flatMap((step) => ("content" in step ? (step.content ?? []).filter((part): part is ScriptedToolCallPart => part.type === "tool-call") : []));

/** What a scenario is, without its functions. */
const shape = (seed: number) => {
  const scenario = generatedScenario(ledger, seed);
  return {
    task: scenario.task,
    tools: scenario.tools.map(({ name, sideEffect, maxAttempts }) => ({ name, sideEffect, maxAttempts })),
    steps: scenario.steps(),
  };
};

describe("generatedScenario", () => {
  it("is the same for the same seed, and differs between seeds", () => {
    expect(shape(7)).toEqual(shape(7));
    expect(shape(7)).not.toEqual(shape(8));
  });

  it("draws every side-effect class and compensation over a few seeds, with calls on shared resources", () => {
    const scenarios = Array.from({ length: 40 }, (_, seed) => generatedScenario(ledger, seed + 1));
    expect(new Set(scenarios.flatMap((scenario) => scenario.tools.map((tool) => tool.sideEffect)))).toEqual(
      new Set(["none", "idempotent", "reversible", "irreversible"]),
    );
    const tasks = scenarios.map((scenario) => scenario.task).join(" ");
    for (const behaviour of [
      "ack-lost-once",
      "duplicate-receipt",
      "stream-cut-once",
      "always-fails",
      "stale-revision",
      "compensation works",
      "compensation fails",
      "reconciled",
    ]) {
      expect(tasks).toContain(behaviour);
    }
    for (const scenario of scenarios) {
      const steps = scenario.steps();
      expect(steps).toHaveLength(4); // 3 tool turns, then the answer
      const calls = toolCalls(steps.slice(0, 3));
      expect(calls.length).toBeGreaterThanOrEqual(3);
      expect(calls.every((call) => scenario.tools.some((tool) => tool.name === call.toolName))).toBe(true);
      // Ids are pinned, so a resumed script proposes the same calls.
      expect(new Set(calls.map((call) => call.toolCallId)).size).toBe(calls.length);
    }
    const resources = scenarios.flatMap((scenario) => toolCalls(scenario.steps()).map((call) => (call.arguments as { resource: string }).resource));
    expect(new Set(resources)).toEqual(new Set(["resource:0", "resource:1", "resource:2"]));
  });

  it("takes its sizes from the options", () => {
    const scenario = generatedScenario(ledger, 1, { turns: 5, maxCallsPerTurn: 1, tools: 2, resources: 1 });
    expect(scenario.tools).toHaveLength(2);
    const steps = scenario.steps();
    expect(steps).toHaveLength(6);
    for (const step of steps.slice(0, 5)) expect(toolCalls([step])).toHaveLength(1);
  });
});
