// A model that never stops (every answer calls a tool again) halts within its budget, with
// each budget dimension in turn as the binding one: the run ends `budget_exhausted` naming
// that dimension and the reservation that bound, what it was charged in that dimension is
// within the limit but for at most one in-flight piece of work, and no reservation is left
// open (in-flight work is settled, never abandoned).
import { createMemoryJournal } from "@yoke/journal";
import { parseYokeEvent, sequentialIdSource, steppingClock, type BudgetAmounts, type BudgetDimension, type YokeEvent } from "@yoke/protocol";
import { createHarness, type BudgetOptions } from "@yoke/runtime";
import { describe, expect, it } from "vitest";
import { ENDLESS, PRICING, chargedOf, endlessModel, openReservationsOf, overshootsOf, poke } from "./runaway-fixtures.ts";

const TENANT = "tenant_runaway";

interface Case {
  readonly dimension: BudgetDimension;
  readonly limits: BudgetAmounts;
  readonly budget?: Omit<BudgetOptions, "limits">;
  readonly calls?: number;
  readonly clockStep?: number;
  readonly usage?: { inputTokens: number; outputTokens: number; cacheReadTokens?: number };
}

const CASES: readonly Case[] = [
  { dimension: "turns", limits: { turns: 6 } },
  { dimension: "tokens", limits: { tokens: 12_000 }, budget: { outputReserve: 64 } },
  { dimension: "input_tokens", limits: { input_tokens: 9_000 }, budget: { outputReserve: 64 } },
  { dimension: "output_tokens", limits: { output_tokens: 600 }, budget: { outputReserve: 64 } },
  { dimension: "cache_read_tokens", limits: { cache_read_tokens: 8_000 }, usage: { inputTokens: 40, outputTokens: 20, cacheReadTokens: 30 } },
  { dimension: "spend", limits: { spend: 40_000 }, budget: { pricing: PRICING, outputReserve: 64 } },
  { dimension: "wall_time", limits: { wall_time: 30_000 }, clockStep: 250 },
  { dimension: "tool_ops", limits: { tool_ops: 7 } },
  { dimension: "tool_ops", limits: { tool_ops: 10 }, calls: 3 },
  { dimension: "concurrency", limits: { concurrency: 2 }, calls: 3 },
];

async function runaway(testCase: Case) {
  const model = endlessModel({ calls: testCase.calls ?? 1, ...(testCase.usage === undefined ? {} : { usage: testCase.usage }) });
  const journal = createMemoryJournal();
  const harness = createHarness({
    journal,
    provider: model,
    tools: [poke],
    tenantId: TENANT,
    clock: steppingClock(1_000_000, testCase.clockStep ?? 0),
    ids: sequentialIdSource(),
    sleep: async () => undefined,
    maxTurns: ENDLESS,
    budget: { limits: testCase.limits, ...testCase.budget },
  });
  const result = await harness.start("Poke everything, forever.");
  const events: YokeEvent[] = [];
  for await (const event of journal.read({ tenantId: TENANT, runId: result.runId })) events.push(parseYokeEvent(event));
  return { result, events, model };
}

describe("a model that never stops halts within its budget, whichever dimension binds", () => {
  for (const testCase of CASES) {
    const label = `${testCase.dimension} (${JSON.stringify(testCase.limits)}${testCase.calls ? `, ${testCase.calls} calls a turn` : ""})`;
    it(label, async () => {
      const { result, events, model } = await runaway(testCase);
      const limit = testCase.limits[testCase.dimension]!;
      expect(result.outcome).toMatchObject({
        status: "budget_exhausted",
        budget: testCase.dimension,
        limit,
        reservationId: expect.stringMatching(/^reservation_/),
      });
      // It halted: far fewer model calls than the script offered.
      expect(model.calls.length).toBeLessThan(ENDLESS / 4);
      // Within the limit, but for at most one piece of in-flight work's overshoot.
      const over = overshootsOf(events, testCase.dimension);
      expect(over.length).toBeLessThanOrEqual(1);
      const charged = chargedOf(events)[testCase.dimension] ?? 0;
      expect(charged - (over[0] ?? 0)).toBeLessThanOrEqual(limit);
      // Every reservation settled before the end; the end is the last event.
      expect(openReservationsOf(events)).toEqual([]);
      expect(events.at(-1)?.type).toBe("run.completed");
      // No action is left in flight: every admitted action has an outcome.
      const admitted = events.filter((event) => event.type === "action.admitted").length;
      const ended = events.filter((event) => event.type === "action.committed" || event.type === "action.failed").length;
      expect(ended).toBe(admitted);
      // Tool operations are never overshot: a batch that does not fit is not dispatched.
      if (testCase.limits.tool_ops !== undefined) expect(chargedOf(events).tool_ops ?? 0).toBeLessThanOrEqual(testCase.limits.tool_ops);
    });
  }

  it("fan_out: a model that spawns a subagent every turn halts when the parent has no room for another child", async () => {
    const parent = endlessModel({ spawn: true });
    const child = endlessModel();
    const journal = createMemoryJournal();
    const harness = createHarness({
      journal,
      provider: {
        ...parent,
        generate: (request, options) =>
          request.tools.some((tool) => tool.name === "spawn_subagent") ? parent.generate(request, options) : child.generate(request, options),
      },
      tools: [poke],
      tenantId: TENANT,
      clock: steppingClock(1_000_000, 0),
      ids: sequentialIdSource(),
      sleep: async () => undefined,
      maxTurns: ENDLESS,
      budget: { limits: { fan_out: 3 } },
      subagents: { tools: ["poke"], budget: { turns: 2 } },
    });
    const result = await harness.start("Delegate everything, forever.");
    expect(result.outcome).toMatchObject({ status: "budget_exhausted", budget: "fan_out", limit: 3 });
    const events: YokeEvent[] = [];
    for await (const event of journal.read({ tenantId: TENANT, runId: result.runId })) events.push(parseYokeEvent(event));
    expect(chargedOf(events).fan_out).toBe(3);
    expect(openReservationsOf(events)).toEqual([]);
    // Each child stopped on its own turn budget; the parent was told SUBAGENT_FAILED and spawned again.
    const failed = events.flatMap((event) => (event.type === "action.failed" ? [event.data.result.error?.code] : []));
    expect(failed).toEqual(["SUBAGENT_FAILED", "SUBAGENT_FAILED", "SUBAGENT_FAILED"]);
  });

  it("the binding dimension is the one that runs out first: with tokens and tool_ops bounded, the tighter one ends the run", async () => {
    const loose = await runaway({ dimension: "tool_ops", limits: { tool_ops: 4, tokens: 1_000_000 }, budget: { outputReserve: 64 } });
    expect(loose.result.outcome).toMatchObject({ status: "budget_exhausted", budget: "tool_ops", limit: 4 });
    const tight = await runaway({ dimension: "tokens", limits: { tool_ops: 1_000, tokens: 3_000 }, budget: { outputReserve: 64 } });
    expect(tight.result.outcome).toMatchObject({ status: "budget_exhausted", budget: "tokens", limit: 3_000 });
  });
});
