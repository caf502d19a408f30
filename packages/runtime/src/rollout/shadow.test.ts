import { createMemoryJournal } from "@yoke/journal";
import { YokeError, sequentialIdSource, steppingClock, type JournalV1, type ProviderAdapterV1, type YokeEvent } from "@yoke/protocol";
import { callTools, createScriptedModel, say, type ScriptedStep } from "@yoke/testkit";
import { createToolRegistry } from "@yoke/tool-registry";
import { describe, expect, it } from "vitest";
import { createHarness } from "../harness.js";
import type { HarnessOptions } from "../harness-types.js";
import { TENANT, countingTool, instantSleep, keyedTool, readAll } from "../__fixtures__/harness-fixtures.js";
import { functionEngine } from "../__fixtures__/policy-fixtures.js";
import { formatRolloutReport } from "./format-report.js";
import { argumentsDigest } from "./recorded-outcomes.js";
import { shadow } from "./shadow.js";
import { suppressTools, type SuppressedCall } from "./suppress-effects.js";

const SCRIPT: readonly ScriptedStep[] = [
  callTools([
    { name: "lookup", args: { key: "a" } },
    { name: "store", args: { key: "a" } },
  ]),
  say("done"),
];

/** Options of one release over its own journal, with a deterministic clock and ids and its own tool instances. */
function release(journal: JournalV1, steps: readonly ScriptedStep[] = SCRIPT, extra: Partial<HarnessOptions> = {}) {
  const lookup = countingTool("lookup", "none");
  const store = countingTool("store", "idempotent");
  const options: HarnessOptions = {
    journal,
    provider: createScriptedModel(steps),
    tools: [lookup.tool, store.tool],
    tenantId: TENANT,
    clock: steppingClock(1_000, 5),
    ids: sequentialIdSource(),
    sleep: instantSleep,
    ...extra,
  };
  return { options, lookups: lookup.calls, stores: store.calls };
}

async function eventsOf(events: AsyncIterable<YokeEvent>): Promise<YokeEvent[]> {
  const all: YokeEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

describe("shadow: the primary's result, unchanged", () => {
  it("start returns what the primary's own start returns, and the primary's journal holds only the primary's run", async () => {
    const alone = release(createMemoryJournal());
    const expected = await createHarness(alone.options).start("store a");
    const primary = release(createMemoryJournal());
    const candidate = release(createMemoryJournal());
    const shadowed = shadow(primary.options, candidate.options);
    const result = await shadowed.start("store a");
    expect(result).toEqual(expected);
    await shadowed.candidateRun(result.runId);
    expect(await readAll(primary.options.journal as JournalV1, result.runId)).toEqual(await readAll(alone.options.journal as JournalV1, expected.runId));
    expect((await readAll(candidate.options.journal as JournalV1, result.runId))[0]?.type).toBe("run.started");
  });
});

describe("shadow: the candidate's effects are suppressed", () => {
  it("a tool with effects never runs its handler; the candidate gets the primary's recorded result for the same call", async () => {
    const primary = release(createMemoryJournal());
    const candidate = release(createMemoryJournal());
    const shadowed = shadow(primary.options, candidate.options);
    const { runId } = await shadowed.start("store a");
    const run = await shadowed.candidateRun(runId);
    expect(run.status).toBe("ran");
    expect(primary.stores).toHaveLength(1);
    expect(candidate.stores).toEqual([]);
    // Read-only tools run live by default.
    expect(candidate.lookups).toHaveLength(1);
    const committed = (await eventsOf(shadowed.candidate.events(runId))).filter((event) => event.type === "action.committed");
    expect(committed.map((event) => event.type === "action.committed" && event.data.result.content[0]?.text)).toEqual(["stored a", "stored a"]);
    expect(shadowed.suppressedCalls()).toEqual([expect.objectContaining({ runId, toolName: "store", sideEffect: "idempotent", served: "primary_outcome" })]);
  });

  it("a call the primary never made fails as suppressed, saying so to the model, and nothing runs", async () => {
    const primary = release(createMemoryJournal());
    const candidateSteps = [callTools([{ name: "store", args: { key: "b" } }]), say("done")];
    const candidate = release(createMemoryJournal(), candidateSteps);
    const shadowed = shadow(primary.options, candidate.options);
    const { runId } = await shadowed.start("store a");
    await shadowed.candidateRun(runId);
    expect(candidate.stores).toEqual([]);
    const failed = (await eventsOf(shadowed.candidate.events(runId))).find((event) => event.type === "action.failed");
    expect(failed?.type === "action.failed" && failed.data.result.error).toEqual({
      code: "TOOL_FAILED",
      message: "shadow mode: store was not run (its effects are suppressed) and the primary run made no call to it with these arguments",
    });
    expect(shadowed.suppressedCalls()).toEqual([expect.objectContaining({ toolName: "store", served: "suppressed" })]);
  });

  it("readOnlyTools: suppress keeps read-only tools from running too", async () => {
    const primary = release(createMemoryJournal());
    const candidate = release(createMemoryJournal());
    const shadowed = shadow(primary.options, candidate.options, { readOnlyTools: "suppress" });
    const { runId } = await shadowed.start("store a");
    await shadowed.candidateRun(runId);
    expect(candidate.lookups).toEqual([]);
    expect(candidate.stores).toEqual([]);
    expect(shadowed.suppressedCalls().map((call) => call.toolName)).toEqual(["lookup", "store"]);
  });

  it("a candidate on a registry has the registry's revisions suppressed", async () => {
    const primary = release(createMemoryJournal());
    const candidate = release(createMemoryJournal());
    const { tools, ...withoutTools } = candidate.options;
    const shadowed = shadow(primary.options, { ...withoutTools, registry: createToolRegistry({ tools: [...(tools ?? [])] }) });
    const { runId } = await shadowed.start("store a");
    expect((await shadowed.candidateRun(runId)).status).toBe("ran");
    expect(candidate.stores).toEqual([]);
    expect(candidate.lookups).toHaveLength(1);
  });
});

describe("shadow: stream, and what never runs besides execute", () => {
  it("stream returns the primary's stream; the candidate follows once its result is in", async () => {
    const primary = release(createMemoryJournal());
    const candidate = release(createMemoryJournal());
    const shadowed = shadow(primary.options, candidate.options);
    const stream = shadowed.stream("store a");
    const parts: string[] = [];
    for await (const part of stream) parts.push(part.type);
    const result = await stream.result;
    expect(parts.at(-1)).toBe("result");
    expect((await shadowed.candidateRun(result.runId)).status).toBe("ran");
    expect(candidate.stores).toEqual([]);
    expect(primary.stores).toHaveLength(1);
  });

  it("a suppressed tool's compensate does nothing but say so, and its reconcile answers not_applied", async () => {
    const undone: string[] = [];
    const tool = keyedTool("reserve", "reversible", async ({ key }) => `reserved ${key}`, {
      compensate: async ({ key }) => void undone.push(key),
      reconcile: async () => ({ status: "applied" }),
    });
    const calls: SuppressedCall[] = [];
    const [suppressed] = suppressTools([tool], { readOnlyTools: "run", outcomesOf: () => undefined, record: (call) => calls.push(call) });
    const signal = new AbortController().signal;
    await suppressed?.compensate?.({ key: "k" }, { actionId: "act_1", idempotencyKey: "act_1:compensate", receipt: undefined, signal } as never);
    expect(undone).toEqual([]);
    expect(calls).toEqual([
      { toolName: "reserve", argumentsDigest: argumentsDigest({ key: "k" }), actionId: "act_1", sideEffect: "reversible", served: "compensation" },
    ]);
    expect(await suppressed?.reconcile?.("act_1" as never, undefined, { actionId: "act_1" as never, receipt: undefined })).toEqual({ status: "not_applied" });
  });
});

describe("shadow: the report", () => {
  it("names the decision a changed policy makes differently, and prints it", async () => {
    const allowAll = functionEngine(() => ["allow", "allow-all"]);
    const denyStores = functionEngine((tuple) => (tuple.tool.name === "store" ? ["deny", "no-stores"] : ["allow", "allow-all"]));
    const primary = release(createMemoryJournal(), SCRIPT, { policy: allowAll });
    const candidate = release(createMemoryJournal(), SCRIPT, { policy: denyStores });
    const shadowed = shadow(primary.options, candidate.options);
    const { runId } = await shadowed.start("store a");
    const report = await shadowed.report(runId);
    expect(report.sameDecisions).toBe(1);
    expect(report.differences).toEqual([
      {
        toolName: "store",
        argumentsDigest: expect.stringMatching(/^[0-9a-f]{64}$/),
        fields: ["decision", "rule", "policy", "code", "outcome"],
        primary: expect.objectContaining({ decision: "admitted", policy: { effect: "allow", ruleId: "allow-all" }, outcome: "committed" }),
        candidate: expect.objectContaining({ decision: "refused", policy: { effect: "deny", ruleId: "no-stores" }, code: "POLICY_DENIED" }),
      },
    ]);
    expect(report.suppressed).toEqual([]);
    expect(candidate.stores).toEqual([]);
    const text = formatRolloutReport(report);
    expect(text).toContain("store");
    expect(text).toContain("policy allow (allow-all)");
    expect(text).toContain("policy deny (no-stores)");
  });

  it("a candidate that throws leaves the primary's result alone; the failure is in the report", async () => {
    const primary = release(createMemoryJournal());
    const broken: ProviderAdapterV1 = {
      ...createScriptedModel([]),
      generate: async () => {
        throw new YokeError("INTERNAL", "the candidate's model broke");
      },
    };
    const candidate = release(createMemoryJournal(), [], { provider: broken });
    const shadowed = shadow(primary.options, candidate.options);
    const result = await shadowed.start("store a");
    expect(result.outcome?.status).toBe("completed");
    const run = await shadowed.candidateRun(result.runId);
    expect(run).toMatchObject({ status: "failed", failure: { code: "INTERNAL", message: "the candidate's model broke" } });
    const report = await shadowed.report(result.runId);
    expect(report.candidateFailure).toEqual({ code: "INTERNAL", message: "the candidate's model broke" });
    expect(report.primary.outcome).toBe("completed");
    expect(formatRolloutReport(report)).toContain("candidate: failed INTERNAL: the candidate's model broke");
  });
});

describe("shadow: bad input", () => {
  it("a candidate on the primary's journal and tenant is CONFIG_INVALID", () => {
    const journal = createMemoryJournal();
    const primary = release(journal);
    const candidate = release(journal);
    expect(() => shadow(primary.options, candidate.options)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", details: { option: "journal" } }));
    // Its own tenant of the same journal is its own stream.
    expect(() => shadow(primary.options, { ...candidate.options, tenantId: "tenant_shadow" })).not.toThrow();
  });

  it("a built primary sharing the candidate's journal and tenant: the candidate's run is refused, the primary's run untouched", async () => {
    const journal = createMemoryJournal();
    const primary = release(journal);
    const candidate = release(journal);
    const shadowed = shadow(createHarness(primary.options), candidate.options);
    const result = await shadowed.start("store a");
    const before = await readAll(journal, result.runId);
    const run = await shadowed.candidateRun(result.runId);
    expect(run).toMatchObject({ status: "failed", failure: { code: "CONFIG_INVALID" } });
    expect(await readAll(journal, result.runId)).toEqual(before);
    expect(candidate.stores).toEqual([]);
  });

  it("a built harness as candidate, and a readOnlyTools that is not run or suppress, are CONFIG_INVALID", () => {
    const primary = release(createMemoryJournal());
    const candidate = release(createMemoryJournal());
    const built = createHarness(candidate.options) as unknown as HarnessOptions;
    expect(() => shadow(primary.options, built)).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", details: { option: "candidate" } }));
    const readOnlyTools = "skip" as unknown as "run";
    expect(() => shadow(primary.options, candidate.options, { readOnlyTools })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("a run this shadow did not start is RUN_NOT_FOUND", async () => {
    const shadowed = shadow(release(createMemoryJournal()).options, release(createMemoryJournal()).options);
    await expect(shadowed.report("run_unknown")).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
  });
});
