// A run pins its tool registry's snapshot: each turn is offered a discovered subset (journaled),
// every admission names the revision it runs, a tool whose live definition drifted is refused
// (or re-admitted by a declared rule), and a resume calls only the pinned revisions.
import { createMemoryJournal } from "@yoke/journal";
import {
  YokeError,
  parseYokeEvent,
  type JournalV1,
  type Message,
  type SourceToolDefinition,
  type ToolResultPart,
  type YokeEvent,
  type YokeEventDraft,
} from "@yoke/protocol";
import { callTools, createStaticToolSource, say, type ScriptedStep } from "@yoke/testkit";
import { createToolRegistry, type ToolRegistryOptions } from "@yoke/tool-registry";
import { describe, expect, it } from "vitest";
import { crashingJournal, echoTool, readAll, rig, SimulatedCrash, TENANT } from "./__fixtures__/harness-fixtures.js";
import { createHarness } from "./harness.js";
import type { HarnessOptions } from "./harness-types.js";
import { reconstructRequest } from "./reconstruct-request.js";

const LOOKUP: SourceToolDefinition = {
  name: "lookup",
  description: "Look a word up.",
  inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
};
const lookupWith = (changes: Partial<SourceToolDefinition>): SourceToolDefinition => ({ ...LOOKUP, ...changes });

/** A registry of the local echo tool and a remote source listing `lookup`, whose listing a test changes. */
async function remoteRig(
  steps: readonly ScriptedStep[],
  options: { registry?: ToolRegistryOptions; harness?: Omit<Partial<HarnessOptions>, "journal"> & { idStart?: number }; journal?: JournalV1 } = {},
) {
  const journal = options.journal ?? createMemoryJournal();
  const source = createStaticToolSource({ tools: [LOOKUP], handler: (_name, input) => `defined: ${JSON.stringify(input)}` });
  const registry = createToolRegistry({ tools: [echoTool], ...options.registry });
  await registry.addSource(source, { trustDomain: "third-party", tools: { lookup: { sideEffect: "none" }, define: { sideEffect: "none" } } });
  const { harness, model } = rig(steps, { ...options.harness, registry, journal });
  return { harness, model, source, registry, journal };
}

/** The tool results the model was shown in the request, by tool call id. */
function resultsShown(messages: readonly Message[]): Map<string, ToolResultPart["result"]> {
  const tool = messages.filter((message) => message.role === "tool").at(-1);
  return new Map(tool?.role === "tool" ? tool.content.map((part) => [part.toolCallId, part.result] as const) : []);
}

async function eventsOf(journal: JournalV1, runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

function ofType<T extends YokeEvent["type"]>(events: readonly YokeEvent[], type: T): Extract<YokeEvent, { type: T }>[] {
  return events.filter((event): event is Extract<YokeEvent, { type: T }> => event.type === type);
}

describe("a run pins its registry's snapshot", () => {
  it("journals the snapshot in run.started, the offered set in each turn.started and the revision in each action.admitted", async () => {
    const { harness, model, registry, journal } = await remoteRig([
      callTools([
        { name: "echo", args: { text: "hi" } },
        { name: "lookup", args: { word: "yoke" } },
      ]),
      say("done"),
    ]);
    const snapshot = registry.snapshot();
    const { runId, outcome } = await harness.start("t");
    model.assertConsumed();
    expect(outcome?.status).toBe("completed");
    const events = await eventsOf(journal, runId);
    const [started] = ofType(events, "run.started");
    expect(started?.data.toolSnapshot).toEqual(snapshot);
    expect(started?.data.tools).toEqual(snapshot.revisions.map((revision) => revision.spec));
    const turns = ofType(events, "turn.started");
    expect(turns).toHaveLength(2);
    for (const turn of turns) {
      expect(turn.data.offered?.tools).toEqual(snapshot.revisions.map(({ name, digest }) => ({ name, digest })));
      expect(turn.data.offered?.digest).toBe(snapshot.digest);
    }
    const digests = new Map(snapshot.revisions.map((revision) => [revision.name, revision.digest]));
    const admitted = ofType(events, "action.admitted");
    expect(admitted.map((event) => [event.data.toolName, event.data.toolRevision])).toEqual([
      ["echo", digests.get("echo")],
      ["lookup", digests.get("lookup")],
    ]);
    const state = await harness.getState(runId);
    expect(state.actions.map((action) => action.toolRevision)).toEqual([digests.get("echo"), digests.get("lookup")]);
  });

  it("labels the descriptions of remote tools untrusted in the request, names each offered revision in the manifest, and reconstructRequest rebuilds every turn's bytes", async () => {
    const { harness, model, journal } = await remoteRig([
      (request) => {
        const lookup = request.tools?.find((tool) => tool.name === "lookup");
        const echo = request.tools?.find((tool) => tool.name === "echo");
        expect(lookup?.description).not.toBe(LOOKUP.description);
        expect(lookup?.description).toContain(LOOKUP.description);
        expect(lookup?.description).toMatch(/remote_tool_description/);
        expect(echo?.description).toBe(echoTool.spec.description);
        return callTools([{ name: "lookup", args: { word: "yoke" } }]);
      },
      say("done"),
    ]);
    const { runId } = await harness.start("t");
    model.assertConsumed();
    const events = await eventsOf(journal, runId);
    const requested = ofType(events, "model.requested");
    for (const [index, event] of requested.entries()) {
      const rebuilt = await reconstructRequest(journal, { tenantId: TENANT, runId }, index + 1);
      expect(rebuilt.requestHash).toBe(event.data.requestHash);
      expect(rebuilt.request.tools?.map((tool) => tool.name)).toEqual(["echo", "lookup"]);
      expect(rebuilt.manifest.tools.find((tool) => tool.name === "lookup")?.trust).toBe("remote_tool_description");
      // The turn's manifest names the revision of every tool it offered.
      const offered = ofType(events, "turn.started")[index]?.data.offered?.tools;
      expect(rebuilt.manifest.tools.map((tool) => ({ name: tool.name, digest: tool.revision }))).toEqual(offered);
    }
  });

  it("offers each turn what discovery admits, and answers a call to a pinned tool not offered with TOOL_NOT_OFFERED", async () => {
    const { harness, model, journal } = await remoteRig(
      [
        (request) => {
          expect(request.tools?.map((tool) => tool.name)).toEqual(["lookup"]);
          return callTools([
            { name: "echo", args: { text: "hi" } },
            { name: "lookup", args: { word: "yoke" } },
          ]);
        },
        (request) => {
          const results = [...resultsShown(request.messages).values()];
          expect(results.map((result) => result.error?.code ?? result.status)).toEqual(["TOOL_NOT_OFFERED", "ok"]);
          expect(results[0]?.error?.message).toMatch(/echo is not offered to this turn.*lookup/);
          return say("done");
        },
      ],
      { registry: { grants: { analyst: { trustDomains: ["third-party"] } } }, harness: { discovery: { principal: "analyst" } } },
    );
    const { runId } = await harness.start("t");
    model.assertConsumed();
    const events = await eventsOf(journal, runId);
    const [started] = ofType(events, "run.started");
    const lookup = started?.data.toolSnapshot?.revisions.find((revision) => revision.name === "lookup");
    expect(ofType(events, "turn.started").map((turn) => turn.data.offered?.tools)).toEqual([
      [{ name: "lookup", digest: lookup?.digest }],
      [{ name: "lookup", digest: lookup?.digest }],
    ]);
    expect(ofType(events, "tool.rejected").map((event) => [event.data.toolName, event.data.code])).toEqual([["echo", "TOOL_NOT_OFFERED"]]);
  });

  it("asks a discovery function with the run's state on every turn, and a typed filter narrows the offer", async () => {
    const asked: number[] = [];
    const { harness, model, journal } = await remoteRig(
      [
        (request) => {
          expect(request.tools?.map((tool) => tool.name)).toEqual(["echo", "lookup"]);
          return callTools([{ name: "echo", args: { text: "hi" } }]);
        },
        (request) => {
          expect(request.tools?.map((tool) => tool.name)).toEqual(["echo"]);
          return say("done");
        },
      ],
      {
        harness: {
          discovery: (state) => {
            asked.push(state.turns);
            return { principal: "user_1", task: state.task, ...(state.turns === 0 ? {} : { filter: { trustDomains: ["local"] } }) };
          },
        },
      },
    );
    const { runId } = await harness.start("t");
    model.assertConsumed();
    expect(asked).toEqual([0, 1]);
    const offers = ofType(await eventsOf(journal, runId), "turn.started").map((turn) => turn.data.offered);
    expect(offers.map((offer) => offer?.tools.map((tool) => tool.name))).toEqual([["echo", "lookup"], ["echo"]]);
    expect(offers[0]?.digest).not.toBe(offers[1]?.digest);
  });

  it("refuses tools together with a registry, and a malformed discovery option (CONFIG_INVALID)", () => {
    const provider = rig([]).model;
    expect(() => createHarness({ provider, tools: [echoTool], registry: createToolRegistry() })).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID", details: { option: "tools" } }),
    );
    expect(() => createHarness({ provider, discovery: { principal: "" } })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});

describe("a pinned tool whose source changed it is refused until re-admitted", () => {
  it.each([
    ["its description", [lookupWith({ description: "Look a word up, and do something else too." })], ["description"]],
    ["its input schema", [lookupWith({ inputSchema: { type: "object", properties: { term: { type: "string" } }, required: ["term"] } })], ["input_schema"]],
    ["it is removed", [], ["removed"]],
  ])("when %s: tool.drifted is journaled once, the model sees TOOL_DRIFTED, and an unrelated tool keeps working", async (_label, listing, changes) => {
    let source: ReturnType<typeof createStaticToolSource> | undefined;
    const { harness, model, journal, ...rest } = await remoteRig([
      callTools([{ name: "lookup", args: { word: "first" } }]),
      (request) => {
        expect(resultsShown(request.messages).get("call_1")?.status).toBe("ok");
        // The server changes its tool while the run is between turns.
        source!.setTools(listing);
        return callTools([
          { name: "lookup", args: { word: "second" } },
          { name: "echo", args: { text: "still here" } },
        ]);
      },
      (request) => {
        const results = [...resultsShown(request.messages).values()];
        expect(results.map((result) => result.error?.code ?? result.status)).toEqual(["TOOL_DRIFTED", "ok"]);
        expect(results[0]?.error?.message).toMatch(/lookup changed since this run pinned it/);
        expect(JSON.stringify(results[1]?.content)).toContain("echo: still here");
        // A drifted tool is no longer offered; a call to it is still refused as drifted, without a second event.
        expect(request.tools?.map((tool) => tool.name)).toEqual(["echo"]);
        return callTools([{ name: "lookup", args: { word: "third" } }]);
      },
      (request) => {
        expect([...resultsShown(request.messages).values()].map((result) => result.error?.code)).toEqual(["TOOL_DRIFTED"]);
        return say("done");
      },
    ]);
    source = rest.source;
    const { runId, outcome } = await harness.start("t");
    model.assertConsumed();
    expect(outcome?.status).toBe("completed");
    expect(source.calls.map((call) => call.input)).toEqual([{ word: "first" }]);
    const events = await eventsOf(journal, runId);
    const pinned = ofType(events, "run.started")[0]?.data.toolSnapshot?.revisions.find((revision) => revision.name === "lookup");
    const drifted = ofType(events, "tool.drifted");
    expect(drifted.map((event) => [event.data.toolName, event.data.pinned, event.data.changes])).toEqual([["lookup", pinned?.digest, changes]]);
    // The drift is journaled in the transaction of the verdicts it led to, before them.
    const types = events.map((event) => event.type);
    const at = types.indexOf("tool.drifted");
    expect(types.slice(at - 1, at + 3)).toEqual(["model.responded", "tool.drifted", "tool.rejected", "action.admitted"]);
    expect(events[at]?.seq).toBe((events[at - 1]?.seq ?? 0) + 1);
    expect(ofType(events, "tool.rejected").map((event) => event.data.code)).toEqual(["TOOL_DRIFTED", "TOOL_DRIFTED"]);
    expect(ofType(events, "tool.readmitted")).toEqual([]);
    const state = await harness.getState(runId);
    expect(state.driftedTools.get("lookup")?.changes).toEqual(changes);
  });

  it("re-admits a description-only change by a declared rule: tool.readmitted is journaled and the call runs the new revision", async () => {
    let source: ReturnType<typeof createStaticToolSource> | undefined;
    const described = lookupWith({ description: "Look a word up in the big dictionary." });
    const { harness, model, journal, registry, ...rest } = await remoteRig(
      [
        (request) => {
          source!.setTools([described]);
          expect(request.tools?.find((tool) => tool.name === "lookup")?.description).toContain(LOOKUP.description);
          return callTools([{ name: "lookup", args: { word: "yoke" } }]);
        },
        (request) => {
          expect(resultsShown(request.messages).get("call_1")?.status).toBe("ok");
          // The next turn is offered the re-admitted revision, with its new description.
          expect(request.tools?.find((tool) => tool.name === "lookup")?.description).toContain(described.description);
          return callTools([{ name: "lookup", args: { word: "again" } }]);
        },
        say("done"),
      ],
      { registry: { readmission: [{ id: "descriptions-ok", changes: ["description"], origin: { kind: "mcp-http" } }] } },
    );
    source = rest.source;
    const { runId, outcome } = await harness.start("t");
    model.assertConsumed();
    expect(outcome?.status).toBe("completed");
    expect(source.calls.map((call) => call.input)).toEqual([{ word: "yoke" }, { word: "again" }]);
    const live = registry.live("lookup");
    const events = await eventsOf(journal, runId);
    const readmitted = ofType(events, "tool.readmitted");
    expect(readmitted.map((event) => [event.data.toolName, event.data.rule, event.data.revision.digest])).toEqual([
      ["lookup", "descriptions-ok", live?.digest],
    ]);
    expect(readmitted[0]?.data.revision).not.toHaveProperty("declaration");
    expect(ofType(events, "tool.drifted").map((event) => event.data.changes)).toEqual([["description"]]);
    expect(ofType(events, "action.admitted").map((event) => event.data.toolRevision)).toEqual([live?.digest, live?.digest]);
    expect(ofType(events, "turn.started")[1]?.data.offered?.tools.find((tool) => tool.name === "lookup")?.digest).toBe(live?.digest);
    // Every turn's request is rebuilt from the journal, before and after the re-admission.
    for (const [index, event] of ofType(events, "model.requested").entries()) {
      expect((await reconstructRequest(journal, { tenantId: TENANT, runId }, index + 1)).requestHash).toBe(event.data.requestHash);
    }
    const state = await harness.getState(runId);
    expect(state.pinnedTools.get("lookup")?.digest).toBe(live?.digest);
    expect(state.driftedTools.size).toBe(0);
  });

  it("does not re-admit a schema change under a description-only rule", async () => {
    let source: ReturnType<typeof createStaticToolSource> | undefined;
    const { harness, model, journal, ...rest } = await remoteRig(
      [
        () => {
          source!.setTools([lookupWith({ description: "new", inputSchema: { type: "object" } })]);
          return callTools([{ name: "lookup", args: { word: "yoke" } }]);
        },
        (request) => {
          expect(resultsShown(request.messages).get("call_1")?.error?.code).toBe("TOOL_DRIFTED");
          return say("done");
        },
      ],
      { registry: { readmission: [{ id: "descriptions-ok", changes: ["description"] }] } },
    );
    source = rest.source;
    const { runId } = await harness.start("t");
    model.assertConsumed();
    const events = await eventsOf(journal, runId);
    expect(ofType(events, "tool.drifted").map((event) => event.data.changes)).toEqual([["description", "input_schema"]]);
    expect(ofType(events, "tool.readmitted")).toEqual([]);
    expect(source.calls).toEqual([]);
  });

  it("refuses a renamed tool under its pinned name (TOOL_DRIFTED naming the new name), and never re-admits a rename", async () => {
    let source: ReturnType<typeof createStaticToolSource> | undefined;
    const { harness, model, journal, ...rest } = await remoteRig(
      [
        () => {
          source!.setTools([lookupWith({ name: "define" })]);
          return callTools([{ name: "lookup", args: { word: "yoke" } }]);
        },
        (request) => {
          const [shown] = resultsShown(request.messages).values();
          expect(shown?.error?.code).toBe("TOOL_DRIFTED");
          expect(shown?.error?.message).toMatch(/renamed it to define/);
          // The new name is not pinned: the run is not offered it.
          expect(request.tools?.map((tool) => tool.name)).toEqual(["echo"]);
          return say("done");
        },
      ],
      { registry: { readmission: [{ id: "anything", changes: ["renamed", "description"] }] } },
    );
    source = rest.source;
    const { runId } = await harness.start("t");
    model.assertConsumed();
    const events = await eventsOf(journal, runId);
    expect(ofType(events, "tool.drifted").map((event) => [event.data.changes, event.data.renamedTo])).toEqual([[["renamed"], "define"]]);
    expect(ofType(events, "tool.readmitted")).toEqual([]);
    expect(source.calls).toEqual([]);
  });

  it("refuses a tool whose source cannot be re-listed with TOOL_REVISION_UNAVAILABLE, and calls it again once it can", async () => {
    let source: ReturnType<typeof createStaticToolSource> | undefined;
    let registry: ReturnType<typeof createToolRegistry> | undefined;
    const { harness, model, journal, ...rest } = await remoteRig([
      async () => {
        source!.failListing(new YokeError("TOOL_SOURCE_UNAVAILABLE", "the server is down"));
        await registry!.refresh().catch(() => undefined);
        return callTools([
          { name: "lookup", args: { word: "yoke" } },
          { name: "echo", args: { text: "fine" } },
        ]);
      },
      async (request) => {
        expect([...resultsShown(request.messages).values()].map((result) => result.error?.code ?? result.status)).toEqual(["TOOL_REVISION_UNAVAILABLE", "ok"]);
        source!.failListing(undefined);
        await registry!.refresh();
        return callTools([{ name: "lookup", args: { word: "again" } }]);
      },
      (request) => {
        expect([...resultsShown(request.messages).values()].map((result) => result.status)).toEqual(["ok"]);
        return say("done");
      },
    ]);
    source = rest.source;
    registry = rest.registry;
    const { runId } = await harness.start("t");
    model.assertConsumed();
    expect(source.calls.map((call) => call.input)).toEqual([{ word: "again" }]);
    const events = await eventsOf(journal, runId);
    expect(ofType(events, "tool.rejected").map((event) => event.data.code)).toEqual(["TOOL_REVISION_UNAVAILABLE"]);
    expect(ofType(events, "tool.drifted")).toEqual([]);
  });

  it("refuses a withdrawn tool with TOOL_WITHDRAWN and stops offering it", async () => {
    let registry: ReturnType<typeof createToolRegistry> | undefined;
    const { harness, model, journal, ...rest } = await remoteRig([
      () => {
        registry!.setLifecycle("lookup", "withdrawn", "leaks data");
        return callTools([
          { name: "lookup", args: { word: "yoke" } },
          { name: "echo", args: { text: "fine" } },
        ]);
      },
      (request) => {
        const results = [...resultsShown(request.messages).values()];
        expect(results.map((result) => result.error?.code ?? result.status)).toEqual(["TOOL_WITHDRAWN", "ok"]);
        expect(results[0]?.error?.message).toMatch(/withdrawn.*leaks data/);
        expect(request.tools?.map((tool) => tool.name)).toEqual(["echo"]);
        return say("done");
      },
    ]);
    registry = rest.registry;
    const { runId } = await harness.start("t");
    model.assertConsumed();
    expect(rest.source.calls).toEqual([]);
    expect(ofType(await eventsOf(journal, runId), "tool.rejected").map((event) => event.data.code)).toEqual(["TOOL_WITHDRAWN"]);
  });
});

describe("a resume calls the revisions the run pinned, never the live ones", () => {
  const RUN = "run_01J0PINNEDRESUME0000000000";
  const changed = [lookupWith({ description: "Look a word up. Also send it to a third party." })];

  /** A fresh "process": a new source (listing `listing`), a new registry and a new harness over `journal`. */
  async function freshProcess(journal: JournalV1, steps: readonly ScriptedStep[], listing: readonly SourceToolDefinition[] = [LOOKUP]) {
    const proc = await remoteRig(steps, { journal, harness: { idStart: 500 } });
    proc.source.setTools(listing);
    await proc.registry.refresh();
    return proc;
  }

  it("an action in flight when the process died is retried under its pinned revision when the tool is unchanged", async () => {
    const journal = createMemoryJournal();
    // Appends: 0 run.started + turn, 1 the response with action.admitted (written, then the process dies).
    const crashed = await remoteRig([callTools([{ name: "lookup", args: { word: "yoke" } }])], { journal: crashingJournal(journal, 1, "written") });
    await expect(crashed.harness.start("t", { runId: RUN })).rejects.toThrow(SimulatedCrash);
    expect(crashed.source.calls).toEqual([]);

    const resumed = await freshProcess(journal, [say("done")]);
    const result = await resumed.harness.resume(RUN);
    expect(result.outcome?.status).toBe("completed");
    expect(resumed.source.calls.map((call) => call.input)).toEqual([{ word: "yoke" }]);
    const events = await eventsOf(journal, RUN);
    expect(ofType(events, "action.committed")).toHaveLength(1);
    expect(ofType(events, "tool.drifted")).toEqual([]);
  });

  it("an action in flight whose tool changed while no process ran stops the run with TOOL_DRIFTED, journaled, and the new definition never runs", async () => {
    const journal = createMemoryJournal();
    const crashed = await remoteRig([callTools([{ name: "lookup", args: { word: "yoke" } }])], { journal: crashingJournal(journal, 1, "written") });
    await expect(crashed.harness.start("t", { runId: RUN })).rejects.toThrow(SimulatedCrash);

    const resumed = await freshProcess(journal, [say("never asked")], changed);
    const error = await resumed.harness.resume(RUN).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(YokeError.isInstance(error) && error.code).toBe("TOOL_DRIFTED");
    expect(resumed.source.calls).toEqual([]);
    expect(resumed.model.calls).toHaveLength(0);
    const events = await eventsOf(journal, RUN);
    const types = events.map((event) => event.type);
    expect(types.slice(-2)).toEqual(["tool.drifted", "run.failed"]);
    const failed = ofType(events, "run.failed")[0];
    expect(failed?.data.code).toBe("TOOL_DRIFTED");
    expect(ofType(events, "tool.drifted")[0]?.data.changes).toEqual(["description"]);
    // A second resume stops the same way, without a second drift event.
    await expect(resumed.harness.resume(RUN)).rejects.toThrow(expect.objectContaining({ code: "TOOL_DRIFTED" }));
    expect(ofType(await eventsOf(journal, RUN), "tool.drifted")).toHaveLength(1);
  });

  // run-tools.ts, recoverCalls (mutation testing, issue 17: `judged.preface.length > 0` as `<= 0` survived): the preface of
  // a response judged at resume is journaled before its verdicts.
  it("a response journaled without its verdicts (another writer's), whose tool changed meanwhile: tool.drifted, then TOOL_DRIFTED", async () => {
    const first = await remoteRig([callTools([{ name: "lookup", args: { word: "yoke" } }])], { journal: crashingJournal(createMemoryJournal(), 1, "written") });
    await expect(first.harness.start("t", { runId: RUN })).rejects.toThrow(SimulatedCrash);
    // The same run up to its response, without the admission that shared its transaction.
    const events = await readAll(first.journal, RUN);
    const responded = events.findIndex((event) => event.type === "model.responded");
    const journal = createMemoryJournal();
    const drafts = events.slice(0, responded + 1).map(({ type, at, causationId, data }) => ({ type, at, causationId, data }) as YokeEventDraft);
    await journal.append({ tenantId: TENANT, runId: RUN }, 0, drafts);

    const resumed = await freshProcess(journal, [say("done")], changed);
    expect((await resumed.harness.resume(RUN)).outcome?.status).toBe("completed");
    expect(resumed.source.calls).toEqual([]);
    const types = (await eventsOf(journal, RUN)).map((event) => event.type);
    // The registry's snapshot is not the one the run pinned: the resume journals the change first.
    expect(types.slice(responded, responded + 4)).toEqual(["model.responded", "release.changed", "tool.drifted", "tool.rejected"]);
  });

  it("after a crash between turns, a call to a tool that changed meanwhile is refused with TOOL_DRIFTED while the pinned echo works", async () => {
    const journal = createMemoryJournal();
    // Appends: 0 start, 1 response + admission, 2 outcome + next request (written, then the process dies).
    const crashed = await remoteRig([callTools([{ name: "lookup", args: { word: "first" } }])], { journal: crashingJournal(journal, 2, "written") });
    await expect(crashed.harness.start("t", { runId: RUN })).rejects.toThrow(SimulatedCrash);
    expect(crashed.source.calls).toHaveLength(1);

    const resumed = await freshProcess(
      journal,
      [
        callTools([
          { name: "lookup", args: { word: "second" } },
          { name: "echo", args: { text: "ok" } },
        ]),
        (request) => {
          expect([...resultsShown(request.messages).values()].map((result) => result.error?.code ?? result.status)).toEqual(["TOOL_DRIFTED", "ok"]);
          return say("done");
        },
      ],
      changed,
    );
    const result = await resumed.harness.resume(RUN);
    resumed.model.assertConsumed();
    expect(result.outcome?.status).toBe("completed");
    expect(resumed.source.calls).toEqual([]);
    const events = await eventsOf(journal, RUN);
    expect(ofType(events, "tool.drifted").map((event) => event.data.toolName)).toEqual(["lookup"]);
    // The resumed process asked with the request the first one journaled: same hash, rebuilt from the journal.
    for (const [index, event] of ofType(events, "model.requested").entries()) {
      expect((await reconstructRequest(journal, { tenantId: TENANT, runId: RUN }, index + 1)).requestHash).toBe(event.data.requestHash);
    }
  });
});
