// A provider outage through each real SDK: the provider answers "overloaded" until the
// runtime's retries run out. The journal alone says why the run stopped (every attempt as
// model.failed, then run.failed with the code and the provider's request id), and a resume
// against a healthy provider finishes the run from there.
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "@yoke/journal";
import { isEventOfType, type JournalV1, type YokeEvent } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import { rejectionOf } from "@yoke/testkit";
import { createReplayServer, readReplayFixture } from "@yoke/testkit/replay";
import { providers } from "./providers.ts";

const RETRIES = 2;

describe.each(providers)("$name: an outage that outlasts the retries", (provider) => {
  const harnessOver = (journal: JournalV1, url: string) =>
    createHarness({
      journal,
      provider: provider.createProvider(url),
      tools: [],
      tenantId: "tenant_outage",
      modelRetries: RETRIES,
      sleep: async () => undefined,
      checkCompletion: async () => ({ passed: true as const }),
    });

  it("journals each failed attempt and the run-level failure with the provider's request id; a resume finishes the run", async () => {
    const journal = createMemoryJournal();
    const outage = await createReplayServer(Array.from({ length: RETRIES + 1 }, () => readReplayFixture(provider.fixtures, provider.unavailableFixture)));
    const error = await rejectionOf(harnessOver(journal, outage.url).start("Say hello.", { runId: "run_outage" }));
    await outage.close();
    expect([error.code, error.details.requestId]).toEqual(["PROVIDER_UNAVAILABLE", provider.unavailableRequestId]);
    expect(outage.requests).toHaveLength(RETRIES + 1);

    const healthy = await createReplayServer([readReplayFixture(provider.fixtures, "text.sse")]);
    const harness = harnessOver(journal, healthy.url);
    const stopped: YokeEvent[] = [];
    for await (const event of harness.events("run_outage")) stopped.push(event);
    const failed = stopped.filter((event) => isEventOfType(event, "model.failed")).map((event) => event.data);
    expect(failed).toEqual(
      Array.from({ length: RETRIES + 1 }, (_, index) =>
        expect.objectContaining({
          attempt: index + 1,
          code: "PROVIDER_UNAVAILABLE",
          retryable: true,
          retrying: index < RETRIES,
          requestId: provider.unavailableRequestId,
        }),
      ),
    );
    const last = stopped.at(-1)!;
    expect(isEventOfType(last, "run.failed") && last.data).toEqual(
      expect.objectContaining({ code: "PROVIDER_UNAVAILABLE", retryable: true, requestId: provider.unavailableRequestId, attempts: RETRIES + 1 }),
    );

    const resumed = await harness.resume("run_outage");
    await healthy.close();
    expect(resumed.outcome?.status).toBe("verified_success");
    expect(healthy.requests).toHaveLength(1);
  });
});
