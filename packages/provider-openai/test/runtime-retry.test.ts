// The runtime, not the SDK, retries: a 429 costs one request, the runtime waits the
// adapter's retryAfterMs (through its injected sleep), asks once more, and journals one response.
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "@yoke/journal";
import { createHarness } from "@yoke/runtime";
import { createOpenAIProvider } from "@yoke/provider-openai";
import { createReplayServer, readReplayFixture } from "@yoke/testkit/replay";

const fixtures = fileURLToPath(new URL("../src/__fixtures__/", import.meta.url));

describe("openai under the runtime's retries", () => {
  it("waits the 429's retry-after once, then journals the one response", async () => {
    const server = await createReplayServer([readReplayFixture(fixtures, "error-429.json"), readReplayFixture(fixtures, "text.sse")]);
    const waits: number[] = [];
    const journal = createMemoryJournal();
    const harness = createHarness({
      journal,
      provider: createOpenAIProvider({ model: "gpt-5-mini", baseURL: `${server.url}/v1`, apiKey: "sk-test" }),
      tools: [],
      tenantId: "tenant_retry",
      sleep: async (ms) => void waits.push(ms),
    });
    const result = await harness.start("Say hello.");
    await server.close();
    expect(result.outcome.status).toBe("verified_success");
    expect(waits).toEqual([2000]);
    expect(server.requests).toHaveLength(2);
    const types: string[] = [];
    for await (const event of harness.events(result.runId)) types.push(event.type);
    expect(types.filter((type) => type === "model.responded")).toHaveLength(1);
  });
});
