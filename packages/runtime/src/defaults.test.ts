import { createScriptedModel, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { createHarness } from "./harness.js";

/** Issue 12, item 4: what a newcomer may leave out, and what the result hands back. */
describe("harness defaults", () => {
  it('needs only a provider: an in-memory journal and the tenant "default"', async () => {
    const harness = createHarness({ provider: createScriptedModel([say("hello")]) });
    const { runId, outcome } = await harness.start("Say hello.");
    expect(outcome).toEqual({ status: "completed" });
    // The run lives in the default journal, under the default tenant, for this harness's life.
    expect((await harness.getState(runId)).phase).toBe("finished");
    const tenants = new Set<string>();
    for await (const event of harness.events(runId)) tenants.add(event.tenantId);
    expect([...tenants]).toEqual(["default"]);
  });

  it("two harnesses without a journal do not share one", async () => {
    const first = createHarness({ provider: createScriptedModel([say("one")]) });
    const { runId } = await first.start("t");
    const second = createHarness({ provider: createScriptedModel([]) });
    await expect(second.getState(runId)).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
  });

  it("still refuses an empty tenant id", () => {
    expect(() => createHarness({ provider: createScriptedModel([]), tenantId: "" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});

describe("result.text", () => {
  it("is the final answer's text parts, joined", async () => {
    const model = createScriptedModel([
      {
        content: [
          { type: "text", text: "2 + 3 " },
          { type: "text", text: "= 5" },
        ],
        stopReason: "end_turn",
      },
    ]);
    const result = await createHarness({ provider: model }).start("What is 2 + 3?");
    expect(result.text).toBe("2 + 3 = 5");
  });

  it("never holds refusal parts, and is the same on a resume of the finished run", async () => {
    const model = createScriptedModel([
      {
        content: [
          { type: "text", text: "I looked at it." },
          { type: "refusal", text: "I can't help with that." },
        ],
        stopReason: "refusal",
      },
    ]);
    const harness = createHarness({ provider: model });
    // A refusal waits for a person (issue 15); closing the wait ends it refused.
    const waiting = await harness.start("t");
    expect(waiting.text).toBe("I looked at it.");
    const result = await harness.resume(waiting.runId, { close: "" });
    expect(result.outcome?.status).toBe("refused");
    expect(result.text).toBe("I looked at it.");
    expect((await harness.resume(result.runId)).text).toBe("I looked at it.");
  });
});
