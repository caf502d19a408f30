import { parseYokeEvent, type ModelResponse } from "@yoke/protocol";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { countingTool, journalCutAfterResponse, readAll, rig } from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";

/** A read-only tool that records how many of its handlers run at once; each yields a few times before it returns. */
function concurrencyProbe() {
  const seen = { active: 0, peak: 0, calls: [] as number[] };
  const tool = defineTool({
    name: "probe",
    description: "Looks at item n.",
    input: z.object({ n: z.number().int() }),
    sideEffect: "none",
    async execute({ n }) {
      seen.calls.push(n);
      seen.active += 1;
      seen.peak = Math.max(seen.peak, seen.active);
      for (let tick = 0; tick < 10; tick++) await Promise.resolve();
      seen.active -= 1;
      return `item ${n}`;
    },
  });
  return { tool, seen };
}

const probes = (count: number) => callTools(Array.from({ length: count }, (_, n) => ({ name: "probe", args: { n } })));

describe("tool calls per turn and at once", () => {
  it("2,000 calls in one response: the first 64 run, at most 8 at once, the rest go back as one TOOL_CALL_LIMIT, and the run goes on", async () => {
    const probe = concurrencyProbe();
    // 2,000 calls and their results are ~320k tokens of mandatory context: a window that holds them.
    const model = createScriptedModel([probes(2_000), say("done")], { capabilities: { contextWindow: 2_000_000 } });
    const { harness, journal } = rig([], { provider: model, tools: [probe.tool] });
    const { runId, outcome, state } = await harness.start("look at everything");
    model.assertConsumed();
    expect(outcome?.status).toBe("completed");
    expect(probe.seen.calls).toEqual(Array.from({ length: 64 }, (_, n) => n));
    expect(probe.seen.peak).toBe(8);

    const events = (await readAll(journal, runId)).map(parseYokeEvent);
    const started = events[0]!;
    expect(started.type === "run.started" && started.data.limits).toEqual({
      maxTurns: 20,
      maxToolCallsPerTurn: 64,
      maxEventOutputBytes: 262_144,
      maxToolInputBytes: 1_048_576,
    });
    expect(events.filter((event) => event.type === "action.admitted")).toHaveLength(64);
    // The 1,936 calls past the cap: one answer (issue 33), not one each.
    expect(events.filter((event) => event.type === "tool.rejected")).toHaveLength(0);
    const excess = events.flatMap((event) => (event.type === "tool.excess_rejected" ? [event.data] : []));
    expect(excess).toMatchObject([{ code: "TOOL_CALL_LIMIT", toolCallId: "call_65", fromIndex: 64, count: 1_936 }]);
    // Still two appends for the tool turn: verdicts with the response, outcomes with the next request.
    expect(journal.appends[1]![0]).toBe("model.responded");
    expect(journal.appends[1]).toHaveLength(1 + 64 + 1);
    // The model is shown the calls it is answered: the 64 that ran and the first past the cap, each with its result, in proposal order.
    const results = state.messages.find((message) => message.role === "tool");
    expect(results?.role === "tool" && results.content.map((part) => part.result.error?.code ?? "ok")).toEqual([
      ...Array<string>(64).fill("ok"),
      "TOOL_CALL_LIMIT",
    ]);
    const proposed = state.messages.find((message) => message.role === "assistant");
    expect(proposed?.role === "assistant" && proposed.content.filter((part) => part.type === "tool-call")).toHaveLength(65);
  });

  it("the limits are options: maxToolCallsPerTurn and maxConcurrentTools", async () => {
    const probe = concurrencyProbe();
    const { harness, journal } = rig([probes(10), say("done")], { tools: [probe.tool], maxToolCallsPerTurn: 6, maxConcurrentTools: 2 });
    const { runId, outcome } = await harness.start("t");
    expect(outcome?.status).toBe("completed");
    expect(probe.seen.calls).toEqual([0, 1, 2, 3, 4, 5]);
    expect(probe.seen.peak).toBe(2);
    const started = parseYokeEvent((await readAll(journal, runId))[0]!);
    expect(started.type === "run.started" && started.data.limits.maxToolCallsPerTurn).toBe(6);
  });

  it("refuses limits that are not positive integers (CONFIG_INVALID)", () => {
    for (const options of [{ maxToolCallsPerTurn: 0 }, { maxConcurrentTools: 1.5 }, { modelCallTimeoutMs: -1 }]) {
      expect(() => rig([], options)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    }
  });
});

describe("a resume judges calls by the limit pinned in run.started, not by its own option", () => {
  const calls = (count: number): ModelResponse["content"] =>
    Array.from({ length: count }, (_, n) => ({
      type: "tool-call" as const,
      toolCallId: `c${n}`,
      toolName: "store",
      rawArguments: `{"key":"k${n}"}`,
      arguments: { key: `k${n}` },
    }));

  it("a run pinned at 2 runs 2 of 4 calls when resumed by a harness allowing 100", async () => {
    const store = countingTool("store", "idempotent");
    const journal = await journalCutAfterResponse(RUN, [store.tool], calls(4), { limits: { maxTurns: 3, maxToolCallsPerTurn: 2 } });
    const fresh = rig([say("done")], { journal, tools: [store.tool], idStart: 1_000, maxToolCallsPerTurn: 100 });
    const { outcome, state } = await fresh.harness.resume(RUN);
    expect(outcome?.status).toBe("completed");
    expect(store.calls.map((call) => call.key)).toEqual(["k0", "k1"]);
    const results = state.messages.find((message) => message.role === "tool");
    // The calls past the cap are answered together, as when judged with their response: the first shown, the rest left out.
    expect(results?.role === "tool" && results.content.map((part) => `${part.toolCallId}:${part.result.error?.code ?? "ok"}`)).toEqual([
      "c0:ok",
      "c1:ok",
      "c2:TOOL_CALL_LIMIT",
    ]);
  });

  it("a journal from before the cap has none: all 4 calls run under a harness allowing 1", async () => {
    const store = countingTool("store", "idempotent");
    const journal = await journalCutAfterResponse(RUN, [store.tool], calls(4));
    const fresh = rig([say("done")], { journal, tools: [store.tool], idStart: 1_000, maxToolCallsPerTurn: 1 });
    const { outcome } = await fresh.harness.resume(RUN);
    expect(outcome?.status).toBe("completed");
    expect(store.calls.map((call) => call.key)).toEqual(["k0", "k1", "k2", "k3"]);
  });
});

const RUN = "run_limits";
