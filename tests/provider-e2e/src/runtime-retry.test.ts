// The runtime, not the SDK, retries: a 429 costs one request, the runtime waits the
// adapter's retryAfterMs (through its injected sleep), asks once more, and journals one response.
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "@yoke/journal";
import { createHarness } from "@yoke/runtime";
import { createReplayServer, readReplayFixture } from "@yoke/testkit/replay";
import { providers } from "./providers.ts";

describe.each(providers)("$name under the runtime's retries", (provider) => {
  it("waits the 429's retry-after once, then journals the one response", async () => {
    const server = await createReplayServer([readReplayFixture(provider.fixtures, "error-429.json"), readReplayFixture(provider.fixtures, "text.sse")]);
    const waits: number[] = [];
    const journal = createMemoryJournal();
    const harness = createHarness({
      journal,
      provider: provider.createProvider(server.url),
      tools: [],
      tenantId: "tenant_retry",
      sleep: async (ms) => void waits.push(ms),
    });
    const result = await harness.start("Say hello.");
    await server.close();
    expect(result.outcome?.status).toBe("completed");
    expect(waits).toEqual([provider.retryAfterMs]);
    expect(server.requests).toHaveLength(2);
    const types: string[] = [];
    for await (const event of harness.events(result.runId)) types.push(event.type);
    expect(types.filter((type) => type === "model.responded")).toHaveLength(1);
  });
});
