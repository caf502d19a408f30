import { createMemoryJournal } from "@yoke/journal";
import { YokeError, parseYokeEvent, type JournalV1, type ModelRequest } from "@yoke/protocol";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readAll, rig } from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";

const probe = defineTool({
  name: "probe",
  description: "Looks at item n.",
  input: z.object({ n: z.number().int() }),
  sideEffect: "none",
  execute: async ({ n }) => `item ${n}`,
});
const probes = (count: number, id = (n: number) => `call_${n + 1}`) =>
  callTools(Array.from({ length: count }, (_, n) => ({ name: "probe", args: { n }, id: id(n) })));

/** Every call id the request shows the model, and every result id, in order. */
function pairing(request: ModelRequest) {
  const calls = request.messages.flatMap((message) =>
    message.role === "assistant" ? message.content.flatMap((part) => (part.type === "tool-call" ? [part.toolCallId] : [])) : [],
  );
  const results = request.messages.flatMap((message) => (message.role === "tool" ? message.content.map((part) => part.toolCallId) : []));
  return { calls, results };
}

async function flood(count: number, id?: (n: number) => string, store?: JournalV1) {
  const model = createScriptedModel([probes(count, id), say("done")]);
  const { harness, journal } = rig([], { provider: model, tools: [probe], ...(store === undefined ? {} : { journal: store }) });
  const { runId, outcome } = await harness.start("look at everything");
  model.assertConsumed();
  const events = (await readAll(journal, runId)).map(parseYokeEvent);
  return { outcome, events, next: model.calls[1]!, bytes: JSON.stringify(model.calls[1]!).length };
}

/** Issue 33, item 4: a flood of calls stays bounded. */
describe("a flood of tool calls in one response", () => {
  it("2,000 calls under the default context window: the run goes on (no CONTEXT_OVERFLOW); every call shown has one result", async () => {
    const { outcome, events, next } = await flood(2_000);
    expect(outcome).toEqual({ status: "completed" });
    expect(events.filter((event) => event.type === "action.admitted")).toHaveLength(64);
    const excess = events.filter((event) => event.type === "tool.excess_rejected");
    expect(excess).toHaveLength(1);
    // What providers require: each call id shown has exactly one result, in the same order.
    const { calls, results } = pairing(next);
    expect(calls).toHaveLength(65);
    expect(results).toEqual(calls);
    const answer = next.messages.find((message) => message.role === "tool")!;
    expect(answer.role === "tool" && answer.content.at(-1)!.result.error?.message).toMatch(
      /this response proposed 2000 tool calls and a turn runs at most 64: this call \(number 65\) and the 1935 after it \(up to id "call_2000"\) were not run/,
    );
  });

  it("a response too large for the journal's maxEventBytes: the start fails JOURNAL_EVENT_TOO_LARGE, run.failed journaled, nothing run", async () => {
    const ran: number[] = [];
    const counted = defineTool({
      ...probe,
      execute: async ({ n }: { n: number }) => {
        ran.push(n);
        return `item ${n}`;
      },
    });
    const model = createScriptedModel([probes(20_000, (n) => `call_${n}_${"x".repeat(500)}`), say("done")]);
    const { harness, journal } = rig([], { provider: model, tools: [counted] });
    const error = await harness.start("look at everything", { runId: "run_flood" }).catch((caught: unknown) => caught);
    expect(YokeError.hasCode(error, "JOURNAL_EVENT_TOO_LARGE")).toBe(true);
    expect(ran).toEqual([]);
    const events = (await readAll(journal, "run_flood")).map(parseYokeEvent);
    expect(events.some((event) => event.type === "model.responded")).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "run.failed", data: { code: "JOURNAL_EVENT_TOO_LARGE" } });
  });

  it("the next request does not grow with the flood: 100, 2,000 or 20,000 calls cost it the same, however long the ids", async () => {
    for (const [count, id] of [
      [2_000, undefined],
      [20_000, (n: number) => `call_${n}_${"x".repeat(500)}`],
    ] as const) {
      // 20,000 calls with 500-character ids make a 12 MB response: over the journal's default
      // maxEventBytes (8 MiB; that refusal is the next test), so this store takes larger events.
      const store = () => createMemoryJournal({ maxEventBytes: 32 * 1024 * 1024 });
      const small = await flood(100, id, store());
      const large = await flood(count, id, store());
      expect(large.outcome).toEqual({ status: "completed" });
      // Only the numbers in the answer differ (and the quoted last id, clipped): nothing scales with the count.
      expect(Math.abs(large.bytes - small.bytes)).toBeLessThan(100);
      const excess = large.events.find((event) => event.type === "tool.excess_rejected")!;
      expect(JSON.stringify(excess.data).length).toBeLessThan(1_500);
    }
  });

  it("one call past the cap: answered alone, nothing left out", async () => {
    const { events, next } = await flood(65);
    expect(events.filter((event) => event.type === "tool.excess_rejected")).toMatchObject([{ data: { fromIndex: 64, count: 1 } }]);
    const { calls, results } = pairing(next);
    expect(calls).toHaveLength(65);
    expect(results).toEqual(calls);
  });
});

describe("a flood of tool calls that does not fit the budget", () => {
  it("ends budget_exhausted with the calls past the cap answered together: the run's conversation stays bounded", async () => {
    const model = createScriptedModel([probes(2_000), say("never asked")]);
    const { harness, journal } = rig([], { provider: model, tools: [probe], budget: { limits: { tool_ops: 10 } } });
    const { runId, outcome, state } = await harness.start("look at everything");
    expect(outcome).toMatchObject({ status: "budget_exhausted", budget: "tool_ops" });
    const events = (await readAll(journal, runId)).map(parseYokeEvent);
    expect(events.filter((event) => event.type === "tool.rejected")).toHaveLength(64);
    expect(events.filter((event) => event.type === "tool.excess_rejected")).toMatchObject([{ data: { code: "TOOL_CALL_LIMIT", fromIndex: 64, count: 1_936 } }]);
    const results = state.messages.find((message) => message.role === "tool");
    expect(results?.role === "tool" && results.content).toHaveLength(65);
  });
});
