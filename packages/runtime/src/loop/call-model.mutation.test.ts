// call-model.ts: a response that breaks the ModelResponse contract fails the run with
// PROVIDER_RESPONSE_INVALID, saying so and carrying the schema's error as its cause; a response
// whose calls do not fit the budget has each call rejected with the message the model reads.
import { parseYokeEvent } from "@yoke/protocol";
import { callTools } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { echoTool, readAll, rejectionOf, rig } from "../__fixtures__/harness-fixtures.js";

describe("a response that breaks the ModelResponse contract", () => {
  it("PROVIDER_RESPONSE_INVALID: names the contract, and the schema's error is its cause", async () => {
    const { harness } = rig([{ content: [{ type: "tool-call", toolName: "echo", toolCallId: "", arguments: {} }] }]);
    const error = await rejectionOf(harness.start("t"));
    expect(error.code).toBe("PROVIDER_RESPONSE_INVALID");
    expect(error.message).toMatch(/^the provider returned a response that is not a ModelResponse: ./);
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).toContain((error.cause as Error).message);
  });
});

// endExhausted's message (mutation testing, issue 17: emptied, it survived; the budget tests checked only the code).
describe("a response whose calls do not fit the budget", () => {
  it("each call is rejected BUDGET_EXHAUSTED, its result saying which budget and its limit, and that it did not run", async () => {
    const { harness, journal } = rig(
      [
        callTools([
          { name: "echo", args: { text: "a" } },
          { name: "echo", args: { text: "b" } },
        ]),
      ],
      { tools: [echoTool], budget: { limits: { tool_ops: 1 } } },
    );
    const { runId, outcome, state } = await harness.start("t");
    expect(outcome).toMatchObject({ status: "budget_exhausted", budget: "tool_ops", limit: 1 });
    const rejected = (await readAll(journal, runId)).map(parseYokeEvent).flatMap((event) => (event.type === "tool.rejected" ? [event.data] : []));
    const message = "the run's budget has no room for this call (tool_ops, limit 1); it did not run";
    expect(rejected).toMatchObject([
      { turnId: state.currentTurnId, toolName: "echo", code: "BUDGET_EXHAUSTED", result: { status: "error", error: { code: "BUDGET_EXHAUSTED", message } } },
      { turnId: state.currentTurnId, toolName: "echo", code: "BUDGET_EXHAUSTED", result: { status: "error", error: { code: "BUDGET_EXHAUSTED", message } } },
    ]);
    expect(state.actions).toEqual([]);
  });
});
