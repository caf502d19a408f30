import { parseYokeEvent, type GenerateOptions, type ProviderAdapterV1 } from "@yoke/protocol";
import type { Timers } from "@yoke/scheduler";
import { createScriptedModel, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { readAll, rejectionOf, rig } from "./__fixtures__/harness-fixtures.js";

/** Every deadline passes as soon as the event loop turns: no wall clock involved. */
const instantTimers: Timers = {
  setTimeout: (callback) => setImmediate(callback),
  clearTimeout: (handle) => clearImmediate(handle as ReturnType<typeof setImmediate>),
};

/** Deadlines that never pass. */
const neverTimers: Timers = { setTimeout: () => 0, clearTimeout: () => undefined };

/** A provider that never answers and ignores its signal; `onCall` runs as each call starts. */
function silentProvider(onCall: (options: GenerateOptions) => void = () => undefined): ProviderAdapterV1 & { readonly signals: AbortSignal[] } {
  const base = createScriptedModel([]);
  const signals: AbortSignal[] = [];
  return {
    specificationVersion: "v1",
    provider: base.provider,
    modelId: base.modelId,
    capabilities: base.capabilities,
    signals,
    generate: (_request, options) => {
      if (options?.signal) signals.push(options.signal);
      onCall(options ?? {});
      return new Promise(() => undefined);
    },
  };
}

describe("model call deadline", () => {
  it("a provider that never answers: each attempt is aborted at its deadline, journaled as model.failed, retried; start() settles with PROVIDER_TIMEOUT", async () => {
    const provider = silentProvider();
    const { harness, journal } = rig([], { provider, timers: instantTimers, modelRetries: 1, modelCallTimeoutMs: 5_000 });
    const error = await rejectionOf(harness.start("t", { runId: "run_silent" }));
    expect(error.code).toBe("PROVIDER_TIMEOUT");
    expect(error.retryable).toBe(true);
    expect(provider.signals.map((signal) => signal.aborted)).toEqual([true, true]);
    expect(journal.appends.slice(1)).toEqual([["model.failed"], ["model.failed", "run.failed"]]);
    const failures = (await readAll(journal, "run_silent")).map(parseYokeEvent).flatMap((event) => (event.type === "model.failed" ? [event.data] : []));
    expect(failures).toEqual([
      { turnId: expect.any(String), attempt: 1, code: "PROVIDER_TIMEOUT", message: "the model did not answer within 5000 ms", retryable: true, retrying: true },
      {
        turnId: expect.any(String),
        attempt: 2,
        code: "PROVIDER_TIMEOUT",
        message: "the model did not answer within 5000 ms",
        retryable: true,
        retrying: false,
      },
    ]);
    // The run stays resumable where it stopped; a provider that answers finishes it.
    expect((await harness.getState("run_silent")).phase).toBe("awaiting_response");
    const second = rig([say("done")], { journal: journal, idStart: 100 });
    expect((await second.harness.resume("run_silent")).outcome?.status).toBe("completed");
  });

  it("a timed-out attempt is retried and the answer of the next one is used", async () => {
    const model = createScriptedModel([() => new Promise(() => undefined), say("done")]);
    const { harness, journal } = rig([], { provider: model, timers: instantTimers });
    const { outcome } = await harness.start("t");
    model.assertConsumed();
    expect(outcome?.status).toBe("completed");
    expect(journal.appends.slice(1, 3)).toEqual([["model.failed"], ["model.responded"]]);
  });

  it("a response that breaks the contract is journaled as a failed attempt, not retried", async () => {
    const { harness, journal } = rig([{ content: [{ type: "tool-call", toolName: "echo", toolCallId: "", arguments: {} }] }]);
    expect((await rejectionOf(harness.start("t"))).code).toBe("PROVIDER_RESPONSE_INVALID");
    expect(journal.appends.slice(1)).toEqual([["model.failed", "run.failed"]]);
  });
});

describe("cancellation during a model call", () => {
  it("lands at once when the provider ignores its signal and never answers: the run ends cancelled, the cut attempt journaled as model.failed CANCELLED in the same append", async () => {
    const controller = new AbortController();
    const provider = silentProvider(() => controller.abort("operator stop"));
    const { harness, journal } = rig([], { provider, timers: neverTimers });
    const { outcome } = await harness.start("t", { runId: "run_cut", signal: controller.signal });
    expect(outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(provider.signals[0]!.aborted).toBe(true);
    expect(journal.appends.slice(1)).toEqual([["model.failed", "run.completed"]]);
    const failures = (await readAll(journal, "run_cut")).map(parseYokeEvent).flatMap((event) => (event.type === "model.failed" ? [event.data] : []));
    expect(failures).toEqual([
      { turnId: expect.any(String), attempt: 1, code: "CANCELLED", message: "the model call was cancelled: operator stop", retryable: false, retrying: false },
    ]);
  });

  it("lands during the wait before a retry: no attempt was cut, so only the failed attempt's model.failed precedes the end", async () => {
    const controller = new AbortController();
    const provider = silentProvider();
    const { harness, journal } = rig([], {
      provider,
      timers: instantTimers,
      sleep: (_ms, signal) => {
        const waiting = new Promise<void>((_resolve, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
        controller.abort("operator stop");
        return waiting;
      },
    });
    const { outcome } = await harness.start("t", { signal: controller.signal });
    expect(outcome?.status).toBe("cancelled");
    expect(journal.appends.slice(1)).toEqual([["model.failed"], ["run.completed"]]);
  });
});
