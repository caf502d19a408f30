// A refusal through the runtime over the real openai SDK: the run waits, closing it ends `refused`, and the
// journal keeps the refusal as a refusal part, never as assistant text (Responses and Chat).
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "@yoke/journal";
import type { ModelResponse } from "@yoke/protocol";
import { createOpenAIProvider } from "@yoke/provider-openai";
import { createHarness } from "@yoke/runtime";
import { createReplayServer, readReplayFixture } from "@yoke/testkit/replay";

const fixtures = fileURLToPath(new URL("../../../packages/provider-openai/src/__fixtures__/", import.meta.url));

describe.each([
  { api: "responses" as const, model: "gpt-5-mini", file: "refusal.sse", path: "/v1/responses" },
  { api: "chat" as const, model: "gpt-4.1-mini", file: "chat-refusal.sse", path: "/v1/chat/completions" },
])("openai $api: a refused run", ({ api, model, file, path }) => {
  it("ends refused and journals the refusal as a refusal part, with no text", async () => {
    const server = await createReplayServer([readReplayFixture(fixtures, file, { path, headers: { "x-request-id": `req_refused_${api}` } })]);
    const harness = createHarness({
      journal: createMemoryJournal(),
      provider: createOpenAIProvider({ model, api, baseURL: `${server.url}/v1`, apiKey: "sk-test" }),
      tools: [],
      tenantId: "tenant_refusal",
    });
    // Issue 15: a refusal waits for a person; closing the wait ends the run refused.
    const waiting = await harness.start("Something harmful.");
    await server.close();
    expect(waiting.state.waiting?.kind).toBe("refusal");
    const result = await harness.resume(waiting.runId, { close: "" });
    expect(result.outcome?.status).toBe("refused");
    expect(server.requests).toHaveLength(1);
    const responses: ModelResponse[] = [];
    for await (const event of harness.events(result.runId)) {
      if (event.type === "model.responded") responses.push(event.data.response);
    }
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({ stopReason: "refusal", requestId: `req_refused_${api}` });
    expect(responses[0]!.content.map((part) => part.type)).toEqual(["refusal"]);
    expect(responses[0]!.content[0]).toMatchObject({ text: "I'm sorry, I can't help with that." });
  });
});
