import { parseYokeEvent, YokeError, type YokeEvent } from "@yoke/protocol";
import { createScriptedModel, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { readAll, rig } from "../__fixtures__/harness-fixtures.js";

/** A model whose output limit is a long-output model's (32,768 tokens), as the adopter's was. */
function longOutputModel(steps: Parameters<typeof createScriptedModel>[0]) {
  return createScriptedModel(steps, { capabilities: { maxOutputTokens: 32_768 } });
}

async function eventsOf(journal: Parameters<typeof readAll>[0], runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

describe("a model call reserves what the request lets the model produce", () => {
  it("a 20,000-token budget refuses the first call of a model whose output limit is 32,768, naming the dimension, the ask and what was left", async () => {
    const model = longOutputModel([say("never asked")]);
    const { harness, journal } = rig([], { provider: model, budget: { limits: { tokens: 20_000 } } });
    const { runId, outcome } = await harness.start("Say hi.");
    expect(model.calls).toHaveLength(0);
    expect(outcome).toMatchObject({ status: "budget_exhausted", budget: "tokens", limit: 20_000, remaining: 20_000 });
    const requested = outcome?.status === "budget_exhausted" ? outcome.requested : undefined;
    // The ask is the compiled input plus the model's whole output limit: more than the budget.
    expect(requested).toBeGreaterThan(32_768);
    expect(requested).toBeLessThan(32_768 + 1_000);
    // The journal holds the same facts (what `yoke show` prints).
    const completed = (await eventsOf(journal, runId)).find((event) => event.type === "run.completed");
    expect(completed?.type === "run.completed" && completed.data.outcome).toEqual(outcome);
  });

  it("with context.maxOutputTokens 1,024 the same budget holds the call, the request carries the limit, and the run completes", async () => {
    const model = longOutputModel([{ ...say("hi"), usage: { inputTokens: 120, outputTokens: 8 } }]);
    const { harness, journal } = rig([], { provider: model, budget: { limits: { tokens: 20_000 } }, context: { maxOutputTokens: 1_024 } });
    const { runId, outcome } = await harness.start("Say hi.");
    expect(outcome?.status).toBe("completed");
    expect(model.calls.map((request) => request.maxOutputTokens)).toEqual([1_024]);
    const requested = (await eventsOf(journal, runId)).find((event) => event.type === "model.requested");
    const reserved = requested?.type === "model.requested" ? requested.data.reserved?.amounts : undefined;
    expect(reserved?.output_tokens).toBe(1_024);
    expect(reserved?.tokens).toBe((reserved?.input_tokens ?? 0) + 1_024);
  });

  it("a budget smaller than one call's reservation still ends the run before the call, typed, with the dimension named", async () => {
    const model = longOutputModel([say("never asked")]);
    const { harness } = rig([], { provider: model, budget: { limits: { turns: 5, output_tokens: 500 } }, context: { maxOutputTokens: 1_024 } });
    const { outcome } = await harness.start("Say hi.");
    expect(model.calls).toHaveLength(0);
    expect(outcome).toEqual({
      status: "budget_exhausted",
      budget: "output_tokens",
      limit: 500,
      requested: 1_024,
      remaining: 500,
      reservationId: expect.any(String),
    });
  });

  it("takes context.outputReserve as the former name of maxOutputTokens, and refuses the two when they differ (CONFIG_INVALID)", async () => {
    const model = longOutputModel([say("hi")]);
    const { harness } = rig([], { provider: model, context: { outputReserve: 2_048, maxOutputTokens: 2_048 } });
    await harness.start("Say hi.");
    expect(model.calls.map((request) => request.maxOutputTokens)).toEqual([2_048]);
    const differing = () => rig([], { provider: longOutputModel([]), context: { outputReserve: 2_048, maxOutputTokens: 1_024 } });
    expect(differing).toThrow(YokeError);
    try {
      differing();
    } catch (error) {
      expect(YokeError.hasCode(error, "CONFIG_INVALID") && error.details.option).toBe("context.maxOutputTokens");
    }
  });
});
