// The provider's request id reaches the journal: on model.responded for an answer, on
// model.failed for each failed attempt; and an error that must not be retried is not, even
// when it arrives inside a 200 stream.
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "@yoke/journal";
import type { YokeEvent } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import { createReplayServer, readReplayFixture } from "@yoke/testkit/replay";
import { rejectionOf } from "@yoke/testkit";
import { providers } from "./providers.ts";

describe.each(providers)("$name: request ids in the journal", (provider) => {
  const harnessOver = (url: string) => {
    const journal = createMemoryJournal();
    const harness = createHarness({ journal, provider: provider.createProvider(url), tools: [], tenantId: "tenant_request_id", sleep: async () => undefined });
    const events = async (runId: string): Promise<YokeEvent[]> => {
      const all: YokeEvent[] = [];
      for await (const event of harness.events(runId)) all.push(event);
      return all;
    };
    return { harness, events };
  };

  it("journals the 429's request id with model.failed and the answer's with model.responded", async () => {
    const server = await createReplayServer([
      readReplayFixture(provider.fixtures, "error-429.json"),
      readReplayFixture(provider.fixtures, "text.sse", { headers: { [provider.requestIdHeader]: "req_answer" } }),
    ]);
    const { harness, events } = harnessOver(server.url);
    const result = await harness.start("Say hello.");
    await server.close();
    expect(result.outcome?.status).toBe("completed");
    const journaled = await events(result.runId);
    expect(journaled.flatMap((event) => (event.type === "model.failed" ? [[event.data.code, event.data.requestId]] : []))).toEqual([
      ["PROVIDER_RATE_LIMITED", provider.rateLimitRequestId],
    ]);
    expect(journaled.flatMap((event) => (event.type === "model.responded" ? [event.data.response.requestId] : []))).toEqual(["req_answer"]);
  });

  it("does not retry an in-stream error that is never retryable, and journals its request id", async () => {
    const server = await createReplayServer([
      readReplayFixture(provider.fixtures, provider.inStreamFatalError, { headers: { [provider.requestIdHeader]: "req_fatal" } }),
      readReplayFixture(provider.fixtures, "text.sse"),
    ]);
    const { harness, events } = harnessOver(server.url);
    const error = await rejectionOf(harness.start("Say hello.", { runId: "run_fatal" }));
    await server.close();
    expect([error.retryable, error.details.requestId]).toEqual([false, "req_fatal"]);
    expect(server.requests).toHaveLength(1);
    const failed = (await events("run_fatal")).flatMap((event) => (event.type === "model.failed" ? [event.data] : []));
    expect(failed).toEqual([expect.objectContaining({ attempt: 1, retryable: false, retrying: false, requestId: "req_fatal" })]);
  });
});
