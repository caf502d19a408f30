import { createMemoryJournal } from "@yoke/journal";
import { YokeError, canonicalJson, type JournalEvent, type ModelRequest } from "@yoke/protocol";
import { callTools, createScriptedModel, refuse, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { crashingJournal, readAll, rig } from "./__fixtures__/harness-fixtures.js";
import { reconstructRequestFromEvents } from "./reconstruct-request.js";

const header = (call: object) => {
  const { messages: _messages, stablePrefixMessages: _prefix, ...rest } = call as Record<string, unknown>;
  return rest;
};
const rebuilt = (events: JournalEvent[], turn: number, inTurn = 0) => canonicalJson(reconstructRequestFromEvents(events, turn, inTurn).request);

describe("per-call settings given to start", () => {
  it("go into every request of the run, are journaled once in run.started, rebuild byte for byte and size the budget's reservation", async () => {
    const settings = {
      temperature: 0.3,
      maxOutputTokens: 512,
      toolChoice: "auto",
      reasoningEffort: "low",
      providerOptions: { scripted: { seed: 7 } },
    } as const;
    const { harness, model, journal } = rig([callTools([{ name: "echo", args: { text: "a" } }]), say("done")], {
      context: { temperature: 0.9, providerOptions: { scripted: { tier: "x" } } },
      budget: { limits: { tokens: 20_000 } },
    });
    const result = await harness.start("t", { settings });
    expect(result.outcome?.status).toBe("completed");
    expect(model.calls).toHaveLength(2);
    for (const call of model.calls) {
      expect(header(call)).toMatchObject({ temperature: 0.3, maxOutputTokens: 512, toolChoice: "auto", reasoningEffort: "low" });
      // A run's provider options replace the harness's per provider id, key by key.
      expect(call.providerOptions).toEqual({ scripted: { tier: "x", seed: 7 } });
    }
    const events = await readAll(journal, result.runId);
    expect(events[0]!.type === "run.started" && events[0]!.data.settings).toEqual(settings);
    expect(events.filter((event) => event.type === "settings.changed")).toEqual([]);
    expect(rebuilt(events, 1)).toBe(canonicalJson(model.calls[0]));
    expect(rebuilt(events, 2)).toBe(canonicalJson(model.calls[1]));
    // The call's own output limit is what the budget holds for it, not the model's 8,192.
    const reservations = events.flatMap((event) => (event.type === "model.requested" && event.data.reserved !== undefined ? [event.data.reserved] : []));
    expect(reservations).toHaveLength(2);
    for (const reserved of reservations) expect(reserved).toMatchObject({ amounts: { output_tokens: 512 } });
  });

  it("without settings, the harness's context settings rule as before (no settings in run.started)", async () => {
    const { harness, model, journal } = rig([say("ok")], { context: { temperature: 0.9 } });
    const result = await harness.start("t");
    expect(model.calls[0]).toMatchObject({ temperature: 0.9, maxOutputTokens: 8_192 });
    expect(model.calls[0]).not.toHaveProperty("reasoningEffort");
    const events = await readAll(journal, result.runId);
    expect(events[0]!.type === "run.started" && "settings" in events[0]!.data).toBe(false);
  });
});

describe("per-call settings given to resume", () => {
  it("are journaled at the resume (settings.changed, the run's settings with the given fields replaced) and apply from the next call on", async () => {
    const { harness, model, journal } = rig([refuse("I would rather not."), say("fine")]);
    const started = await harness.start("t", { settings: { temperature: 0.1, maxOutputTokens: 256 } });
    expect(started.waiting).toBeDefined();
    const resumed = await harness.resume(started.runId, { input: "please", settings: { temperature: 0.7, reasoningEffort: "high" } });
    expect(resumed.outcome?.status).toBe("completed");
    expect(header(model.calls[0]!)).toMatchObject({ temperature: 0.1, maxOutputTokens: 256 });
    expect(model.calls[0]).not.toHaveProperty("reasoningEffort");
    expect(header(model.calls[1]!)).toMatchObject({ temperature: 0.7, maxOutputTokens: 256, reasoningEffort: "high" });
    const events = await readAll(journal, started.runId);
    const changed = events.filter((event) => event.type === "settings.changed");
    expect(changed.map((event) => event.data)).toEqual([{ settings: { temperature: 0.7, maxOutputTokens: 256, reasoningEffort: "high" } }]);
    // Journaled before the person's input, in the resume's own transaction.
    expect(events.findIndex((event) => event.type === "settings.changed")).toBeLessThan(events.findIndex((event) => event.type === "input.added"));
    expect(rebuilt(events, 1)).toBe(canonicalJson(model.calls[0]));
    expect(rebuilt(events, 2)).toBe(canonicalJson(model.calls[1]));
  });

  it("settings equal to the run's journal nothing; a finished run refuses new settings (RUN_FINISHED)", async () => {
    const { harness, journal } = rig([refuse("no"), say("ok")]);
    const started = await harness.start("t", { settings: { temperature: 0.1 } });
    const done = await harness.resume(started.runId, { input: "go", settings: { temperature: 0.1 } });
    expect(done.outcome?.status).toBe("completed");
    expect((await readAll(journal, started.runId)).some((event) => event.type === "settings.changed")).toBe(false);
    await expect(harness.resume(started.runId, { settings: { temperature: 0.5 } })).rejects.toMatchObject({ code: "RUN_FINISHED" });
  });
});

describe("per-call settings given to startOrResume", () => {
  it("start a run with them, and change an existing run's from its next request on", async () => {
    const { harness, model, journal } = rig([refuse("no"), say("ok")]);
    const first = await harness.startOrResume("t", { runId: "run_either1", settings: { temperature: 0.1 } });
    expect(first.waiting).toBeDefined();
    const events = await readAll(journal, "run_either1");
    expect(events[0]!.type === "run.started" && events[0]!.data.settings).toEqual({ temperature: 0.1 });
    // A resume (the run exists) with other settings journals them; the waiting run then goes on with its input.
    const again = await harness.startOrResume("t", { runId: "run_either1", settings: { temperature: 0.6 } });
    expect(again.waiting).toBeDefined();
    expect((await readAll(journal, "run_either1")).filter((event) => event.type === "settings.changed").map((event) => event.data)).toEqual([
      { settings: { temperature: 0.6 } },
    ]);
    await harness.resume("run_either1", { input: "go" });
    expect(header(model.calls[1]!)).toMatchObject({ temperature: 0.6 });
  });
});

describe("per-call settings across a crash", () => {
  it("a resume without settings after a crash keeps the journaled ones (start's, then a resume's)", async () => {
    const inner = createMemoryJournal();
    // The first transaction (run.started with the first request) is written, the response is lost.
    const first = rig([say("lost")], { journal: crashingJournal(inner, 1, "lost") });
    const settings = { temperature: 0.2, maxOutputTokens: 300 };
    await expect(first.harness.start("t", { runId: "run_settings1", settings })).rejects.toThrow("simulated crash");

    // A resume with new settings: settings.changed is written, and the process dies before the call's response.
    const second = rig([say("lost again")], { journal: crashingJournal(inner, 1, "lost") });
    await expect(second.harness.resume("run_settings1", { settings: { temperature: 0.8 } })).rejects.toThrow("simulated crash");

    const third = rig([callTools([{ name: "echo", args: { text: "x" } }]), say("done")], { journal: inner });
    const result = await third.harness.resume("run_settings1");
    expect(result.outcome?.status).toBe("completed");
    // The request journaled before the settings changed is sent again as it was, with the start's settings...
    expect(header(first.model.calls[0]!)).toMatchObject({ temperature: 0.2, maxOutputTokens: 300 });
    expect(canonicalJson(second.model.calls[0])).toBe(canonicalJson(first.model.calls[0]));
    expect(canonicalJson(third.model.calls[0])).toBe(canonicalJson(first.model.calls[0]));
    // ...and the next request is compiled under the settings the resume journaled.
    expect(header(third.model.calls[1]!)).toMatchObject({ temperature: 0.8, maxOutputTokens: 300 });
    const events = await readAll(inner, "run_settings1");
    expect(events.filter((event) => event.type === "settings.changed")).toHaveLength(1);
    expect(rebuilt(events, 1)).toBe(canonicalJson(third.model.calls[0]));
    expect(rebuilt(events, 2)).toBe(canonicalJson(third.model.calls[1]));
  });
});

describe("invalid per-call settings", () => {
  const cases: [string, unknown, string][] = [
    ["a temperature that is not a number", { temperature: "hot" }, "start.settings.temperature"],
    ["a temperature out of range", { temperature: 3 }, "start.settings.temperature"],
    ["a fractional output limit", { maxOutputTokens: 1.5 }, "start.settings.maxOutputTokens"],
    ["an output limit above the model's", { maxOutputTokens: 8_193 }, "start.settings.maxOutputTokens"],
    ["an unknown tool choice", { toolChoice: "any" }, "start.settings.toolChoice"],
    ["an unknown reasoning effort", { reasoningEffort: "extreme" }, "start.settings.reasoningEffort"],
    ["an unknown setting", { topK: 3 }, "start.settings.topK"],
    ["provider options that are not objects", { providerOptions: { scripted: 1 } }, "start.settings.providerOptions.scripted"],
  ];
  for (const [what, settings, option] of cases) {
    it(`start refuses ${what} (CONFIG_INVALID naming ${option}) before anything is journaled`, async () => {
      const { harness, model, journal } = rig([say("never")]);
      const error = await harness.start("t", { runId: "run_bad1", settings: settings as never }).catch((caught: unknown) => caught);
      expect(YokeError.isInstance(error) && error.code).toBe("CONFIG_INVALID");
      expect((error as YokeError).details).toMatchObject({ option });
      expect(model.calls).toHaveLength(0);
      expect(await readAll(journal, "run_bad1")).toEqual([]);
    });
  }

  it("resume refuses malformed settings (CONFIG_INVALID naming resume.settings.…) and journals nothing", async () => {
    const { harness, journal } = rig([refuse("no")]);
    const started = await harness.start("t");
    const before = await readAll(journal, started.runId);
    await expect(harness.resume(started.runId, { input: "go", settings: { maxOutputTokens: -1 } })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      details: { option: "resume.settings.maxOutputTokens" },
    });
    expect(await readAll(journal, started.runId)).toEqual(before);
  });

  it("an output limit that leaves the context no room is CONFIG_INVALID naming the settings", async () => {
    const provider = createScriptedModel([say("never")], { capabilities: { contextWindow: 4_096, maxOutputTokens: 4_096 } });
    const { harness } = rig([], { provider, context: { maxOutputTokens: 1_024 } });
    await expect(harness.start("t", { settings: { maxOutputTokens: 4_096 } })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      details: { option: "start.settings" },
      message: expect.stringContaining("maxOutputTokens must be smaller than contextWindow"),
    });
    expect(provider.calls).toHaveLength(0);
  });
});

describe("a reasoning effort the provider cannot represent", () => {
  /** A scripted model whose admission, as a real adapter's, refuses a reasoning effort. */
  const noEffort = (steps: Parameters<typeof createScriptedModel>[0]) =>
    Object.assign(createScriptedModel(steps), {
      admit(request: ModelRequest): string[] {
        if (request.reasoningEffort === undefined) return [];
        throw new YokeError("PROVIDER_ADMISSION_REJECTED", "scripted-1 cannot take this request: no reasoning effort", { details: { provider: "scripted" } });
      },
    });

  it("is refused by the provider's admission (PROVIDER_ADMISSION_REJECTED), typed, before start journals anything", async () => {
    const provider = noEffort([say("never")]);
    const { harness, journal } = rig([], { provider });
    const error = await harness.start("t", { runId: "run_effort1", settings: { reasoningEffort: "high" } }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "PROVIDER_ADMISSION_REJECTED" });
    expect(provider.calls).toHaveLength(0);
    expect(await readAll(journal, "run_effort1")).toEqual([]);
  });

  it("given at a resume, is refused before the request is journaled (run.failed); a resume that drops it (null) goes on under the harness's settings", async () => {
    const provider = noEffort([refuse("no"), say("ok")]);
    const { harness, journal } = rig([], { provider, context: { temperature: 0.4 } });
    const started = await harness.start("t", { settings: { temperature: 0.9 } });
    await expect(harness.resume(started.runId, { input: "go", settings: { reasoningEffort: "high", temperature: null } })).rejects.toMatchObject({
      code: "PROVIDER_ADMISSION_REJECTED",
    });
    expect(provider.calls).toHaveLength(1);
    expect((await readAll(journal, started.runId)).at(-1)).toMatchObject({ type: "run.failed", data: { code: "PROVIDER_ADMISSION_REJECTED" } });
    const done = await harness.resume(started.runId, { settings: { reasoningEffort: null } });
    expect(done.outcome?.status).toBe("completed");
    expect(header(provider.calls[1]!)).toMatchObject({ temperature: 0.4 });
    expect(provider.calls[1]).not.toHaveProperty("reasoningEffort");
    const changed = (await readAll(journal, started.runId)).filter((event) => event.type === "settings.changed");
    expect(changed.map((event) => event.data)).toEqual([{ settings: { reasoningEffort: "high" } }, { settings: {} }]);
  });
});
