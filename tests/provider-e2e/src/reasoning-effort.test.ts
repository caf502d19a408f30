// A run's reasoning effort through the real adapters and SDKs, against the replay server: a
// model that cannot take one is refused by the adapter's admission, typed, before any HTTP
// request (the run journals run.failed and stays resumable); a resume that drops the setting
// goes on; a reasoning model receives it on the wire.
import { createMemoryJournal } from "@yoke/journal";
import type { JournalV1, ProviderAdapterV1 } from "@yoke/protocol";
import { createAnthropicProvider } from "@yoke/provider-anthropic";
import { createOpenAIProvider } from "@yoke/provider-openai";
import { createHarness } from "@yoke/runtime";
import { createReplayServer, readReplayFixture, type ReplayServer } from "@yoke/testkit/replay";
import { afterEach, describe, expect, it } from "vitest";
import { providers } from "./providers.ts";

const fixturesOf = (name: string) => providers.find((provider) => provider.name === name)!.fixtures;

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function events(journal: JournalV1, runId: string) {
  const read = [];
  for await (const event of journal.read({ tenantId: "tenant_effort", runId })) read.push(event);
  return read;
}

const cases: { name: string; fixture: string; provider: (url: string) => ProviderAdapterV1 }[] = [
  {
    name: "openai (a model without reasoning)",
    fixture: "openai",
    provider: (url) => createOpenAIProvider({ model: "gpt-4.1-mini", baseURL: `${url}/v1`, apiKey: "sk-test" }),
  },
  { name: "anthropic", fixture: "anthropic", provider: (url) => createAnthropicProvider({ model: "claude-sonnet-4-6", baseURL: url, apiKey: "sk-ant-test" }) },
];

describe.each(cases)("$name: a reasoning effort the model cannot take", ({ fixture, provider }) => {
  it("is refused by the adapter's admission (PROVIDER_ADMISSION_REJECTED) before anything is journaled or sent", async () => {
    server = await createReplayServer([]);
    const journal = createMemoryJournal();
    const harness = createHarness({ provider: provider(server.url), journal, tenantId: "tenant_effort", tools: [] });
    const refused = await harness.start("Say hello.", { runId: "run_effort", settings: { reasoningEffort: "high" } }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "PROVIDER_ADMISSION_REJECTED" });
    expect(server.requests).toHaveLength(0);
    expect(await events(journal, "run_effort")).toEqual([]);
  });

  it("given at a resume, is refused before its request is journaled (run.failed); a resume dropping it (null) goes on", async () => {
    server = await createReplayServer([readReplayFixture(fixturesOf(fixture), "refusal.sse"), readReplayFixture(fixturesOf(fixture), "text.sse")]);
    const journal = createMemoryJournal();
    const harness = createHarness({ provider: provider(server.url), journal, tenantId: "tenant_effort", tools: [] });
    const waiting = await harness.start("Say hello.", { runId: "run_effort" });
    expect(waiting.waiting).toBeDefined();
    const refused = await harness.resume("run_effort", { input: "Please.", settings: { reasoningEffort: "high" } }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: "PROVIDER_ADMISSION_REJECTED" });
    expect(server.requests).toHaveLength(1);
    const journaled = await events(journal, "run_effort");
    expect(journaled.filter((event) => event.type === "model.requested")).toHaveLength(1);
    expect(journaled.at(-1)).toMatchObject({ type: "run.failed", data: { code: "PROVIDER_ADMISSION_REJECTED" } });
    const resumed = await harness.resume("run_effort", { settings: { reasoningEffort: null } });
    expect(resumed.outcome?.status).toBe("completed");
    expect(server.requests).toHaveLength(2);
    expect(server.requests[1]!.rawBody).not.toContain("effort");
    expect((await events(journal, "run_effort")).filter((event) => event.type === "settings.changed").map((event) => event.data)).toEqual([
      { settings: { reasoningEffort: "high" } },
      { settings: {} },
    ]);
  });
});

describe("openai: a reasoning model", () => {
  it("receives the run's reasoning effort on the wire", async () => {
    server = await createReplayServer([readReplayFixture(fixturesOf("openai"), "text.sse")]);
    const harness = createHarness({
      provider: createOpenAIProvider({ model: "gpt-5-mini", baseURL: `${server.url}/v1`, apiKey: "sk-test" }),
      journal: createMemoryJournal(),
      tenantId: "tenant_effort",
      tools: [],
    });
    expect((await harness.start("Say hello.", { settings: { reasoningEffort: "low", maxOutputTokens: 2_000 } })).outcome?.status).toBe("completed");
    expect(server.requests[0]!.body).toMatchObject({ reasoning: { effort: "low" }, max_output_tokens: 2_000 });
  });
});
