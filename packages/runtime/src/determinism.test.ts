import { createMemoryJournal } from "@yoke/journal";
import { reduceRun, steppingClock, type JournalV1, type RunState } from "@yoke/protocol";
import {
  callTools,
  duplicateToolCallIds,
  malformedToolArguments,
  refuse,
  say,
  truncated,
  truncatedToolCall,
  unknownTool,
  type ScriptedStep,
  type ToolCallSpec,
} from "@yoke/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SimulatedCrash, TENANT, countingTool, crashingJournal, echoTool, failingTool, readAll, rejectionOf, rig } from "./__fixtures__/harness-fixtures.js";
import type { CompletionCheck } from "./harness-types.js";

const RUN = "run_property";

const callArbitrary: fc.Arbitrary<ToolCallSpec> = fc.oneof(
  fc.string({ maxLength: 8 }).map((text) => ({ name: "echo", args: { text } })),
  fc.integer().map((text) => ({ name: "echo", args: { text } })),
  fc.constantFrom("a", "b").map((key) => ({ name: "store", args: { key } })),
  fc.constant({ name: "explode", args: {} }),
  fc.constant({ name: "nonexistent", args: {} }),
);

const stepArbitrary: fc.Arbitrary<ScriptedStep> = fc.oneof(
  fc.string({ maxLength: 8 }).map((text) => say(text)),
  fc.array(callArbitrary, { minLength: 1, maxLength: 3 }).map((calls) => callTools(calls)),
  fc.array(callArbitrary, { minLength: 2, maxLength: 3 }).map((calls) => duplicateToolCallIds(calls)),
  fc.constant(malformedToolArguments("echo", "{nope")),
  fc.constant(unknownTool("ghost")),
  fc.constant(truncated("cut")),
  fc.constant(refuse("no")),
  fc.constant(truncatedToolCall("echo", '{"te')),
  fc.constant(truncatedToolCall("store", '{"k', { calls: [{ name: "echo", args: { text: "y" } }] })),
);

interface Scenario {
  steps: ScriptedStep[];
  maxTurns: number;
  /** The check passes once the model has been sent back this many failures. */
  failuresBeforePass: number;
}

const scenarioArbitrary: fc.Arbitrary<Scenario> = fc.record({
  steps: fc.array(stepArbitrary, { maxLength: 8 }),
  maxTurns: fc.integer({ min: 1, max: 6 }),
  failuresBeforePass: fc.integer({ min: 0, max: 2 }),
});

/** A pure function of state, so a resumed run decides as the uninterrupted one did. */
const checkFor =
  (failuresBeforePass: number): CompletionCheck =>
  async ({ state }) => {
    const feedback = state.messages.filter((message) => message.role === "user").length - 1;
    return feedback >= failuresBeforePass ? { passed: true } : { passed: false, reason: `failure ${feedback + 1}` };
  };

/** The scripted steps padded with final answers: enough for every turn and continuation. */
const padded = (scenario: Scenario) => [...scenario.steps, ...Array.from({ length: scenario.maxTurns + 2 }, () => say("done"))];

function scenarioRig(scenario: Scenario, journal?: JournalV1, idStart?: number, steps = padded(scenario)) {
  const store = countingTool("store", "idempotent");
  return rig(steps, {
    tools: [echoTool, store.tool, failingTool],
    maxTurns: scenario.maxTurns,
    checkCompletion: checkFor(scenario.failuresBeforePass),
    clock: steppingClock(1_000, 1),
    ...(journal === undefined ? {} : { journal }),
    ...(idStart === undefined ? {} : { idStart }),
  });
}

const comparable = (state: RunState) => ({
  messages: state.messages.map((message) =>
    message.role === "tool" ? { ...message, content: message.content.map((part) => ({ ...part, result: { ...part.result, timing: null } })) } : message,
  ),
  outcome: state.outcome,
  turns: state.turns,
});

describe("determinism", () => {
  it("two runs with the same inputs write identical journals", async () => {
    const scenario: Scenario = {
      steps: [
        callTools([
          { name: "echo", args: { text: "x" } },
          { name: "store", args: { key: "a" } },
        ]),
        truncated("cut"),
        say("done"),
      ],
      maxTurns: 5,
      failuresBeforePass: 1,
    };
    const heads: string[] = [];
    const journals: unknown[] = [];
    for (let run = 0; run < 2; run++) {
      const { harness, journal } = scenarioRig(scenario);
      const { runId } = await harness.start("task");
      const verified = await journal.verify({ tenantId: TENANT, runId });
      if (!verified.ok) throw new SimulatedCrash();
      heads.push(verified.headHash);
      journals.push(await readAll(journal, runId));
    }
    expect(heads[0]).toBe(heads[1]);
    expect(journals[0]).toEqual(journals[1]);
  });

  it("property: reduceRun over the journal equals the live state, whatever the model does", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async (scenario) => {
        const { harness, journal } = scenarioRig(scenario);
        const result = await harness.start("task", { runId: RUN });
        const events = await readAll(journal, RUN);
        expect(reduceRun(events)).toEqual(result.state);
        expect(await harness.getState(RUN)).toEqual(result.state);
        // A refusal no longer ends the run: it waits for a person (issue 15), with no outcome yet.
        if (result.waiting !== undefined) expect(result.state.waiting).toBeDefined();
        else expect(result.state.phase).toBe("finished");
        expect(result.state.length).toBe(events.length);
      }),
      { numRuns: 60 },
    );
  });

  it("property: a crash at any append, then a resume in a fresh process, ends like the uninterrupted run", async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, fc.nat(), fc.constantFrom("lost" as const, "written" as const), async (scenario, cut, mode) => {
        const reference = scenarioRig(scenario);
        const expected = await reference.harness.start("task", { runId: RUN });
        const allowed = cut % reference.journal.appends.length;

        const journal = createMemoryJournal();
        const crashed = scenarioRig(scenario, crashingJournal(journal, allowed, mode));
        expect(await rejectionOf(crashed.harness.start("task", { runId: RUN }))).toBeInstanceOf(SimulatedCrash);

        const answered = (await readAll(journal, RUN)).filter((event) => event.type === "model.responded").length;
        const fresh = scenarioRig(scenario, journal, 1_000, padded(scenario).slice(answered));
        const exists = (await journal.head({ tenantId: TENANT, runId: RUN })) !== null;
        const result = exists ? await fresh.harness.resume(RUN) : await fresh.harness.start("task", { runId: RUN });
        expect(fresh.model.unexpectedCalls).toBe(0);
        expect(comparable(result.state)).toEqual(comparable(expected.state));
        expect(reduceRun(await readAll(journal, RUN))).toEqual(result.state);
      }),
      { numRuns: 60 },
    );
  });
});
