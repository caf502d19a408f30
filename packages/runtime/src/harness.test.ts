import { createMemoryJournal } from "@yoke/journal";
import { YokeError, canonicalJson, parseYokeEvent, type JournalEvent, type JournalV1 } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ADMITTED, countingTool, echoTool, readAll, rejectionOf, rig } from "./__fixtures__/harness-fixtures.js";
import { createHash } from "node:crypto";
import { reconstructRequestFromEvents } from "./reconstruct-request.js";
import { RUNTIME_VERSION } from "./version.js";

describe("createHarness: the happy path", () => {
  const store = countingTool("store", "idempotent");
  const script = () => [
    callTools([{ name: "echo", args: { text: "one" } }]),
    callTools([
      { name: "echo", args: { text: "two" } },
      { name: "store", args: { key: "k" } },
    ]),
    say("done"),
  ];

  it("runs tool turns then completes (no completion check: unverified), in exactly this event sequence", async () => {
    const { harness, model, journal } = rig(script(), { tools: [echoTool, store.tool], systemPrompt: "Be brief." });
    const result = await harness.start("do the thing");
    model.assertConsumed();
    expect(result.outcome).toEqual({ status: "completed" });
    expect(journal.appends).toEqual([
      ["run.started", "turn.started", "context.compiled", "model.requested"],
      ["model.responded", ...ADMITTED],
      ["action.committed", "turn.started", "context.compiled", "model.requested"],
      ["model.responded", ...ADMITTED, ...ADMITTED],
      ["action.committed", "action.committed", "turn.started", "context.compiled", "model.requested"],
      ["model.responded"],
      // No completion check: nothing was checked, so no completion.checked is journaled.
      ["run.completed"],
    ]);
    // A tool turn costs exactly two appends: response + every transition up to executing, then outcomes + next request.
    const toolTurnAppends = journal.appends.filter((types) => types.includes("action.admitted") || types.includes("action.committed"));
    expect(toolTurnAppends).toHaveLength(2 * 2);

    expect(result.state.turns).toBe(3);
    expect(result.state.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "tool", "assistant"]);
    const lastTool = result.state.messages[4]!;
    expect(lastTool.role === "tool" && lastTool.content.map((part) => [part.toolCallId, part.result.status, part.result.content[0]!.text])).toEqual([
      ["call_2", "ok", "echo: two"],
      ["call_3", "ok", "stored k"],
    ]);
    expect(lastTool.role === "tool" && lastTool.content[1]!.result.output).toEqual({ key: "k" });
  });

  it("journals the tools, limits and release in run.started, and causation ids per event", async () => {
    const { harness } = rig(script(), { tools: [echoTool, store.tool], maxTurns: 5 });
    const { runId } = await harness.start("do the thing");
    const events: JournalEvent[] = [];
    for await (const event of harness.events(runId)) events.push(event);
    const started = parseYokeEvent(events[0]!);
    expect(started.type === "run.started" && started.data).toMatchObject({
      task: "do the thing",
      limits: { maxTurns: 5, maxToolCallsPerTurn: 64 },
      release: { runtime: `@yoke/runtime@${RUNTIME_VERSION}`, eventSchemaVersion: 1 },
      tools: [echoTool.spec, store.tool.spec],
    });
    const actionEvents = new Set<string>();
    for (const raw of events) {
      const event = parseYokeEvent(raw);
      if (event.type === "action.admitted") expect(event.causationId).toBe(event.data.turnId);
      if (event.type === "action.committed" || event.type === "action.failed") expect(event.causationId).toBe(event.data.actionId);
      if (event.type === "action.admitted" || event.type === "action.committed") actionEvents.add(event.type);
      if (event.type === "turn.started" || event.type === "model.requested" || event.type === "model.responded") {
        expect(event.causationId).toBe(event.data.turnId);
      }
    }
    expect([...actionEvents].sort()).toEqual(["action.admitted", "action.committed"]);
  });

  it("journals the hash of exactly the request the model received", async () => {
    const { harness, model } = rig(script(), { tools: [echoTool, store.tool], systemPrompt: "Be brief." });
    const { runId } = await harness.start("do the thing");
    const events = (await readAllFrom(harness, runId)).map(parseYokeEvent);
    const hashes = events.flatMap((event) => (event.type === "model.requested" ? [event.data.requestHash] : []));
    // The request bytes of docs/decisions/0003: the canonical header, then each message, one per line.
    const hashOf = ({ messages, stablePrefixMessages: _prefix, ...header }: (typeof model.calls)[number]) =>
      createHash("sha256")
        .update([header, ...messages].map((part) => `${canonicalJson(part)}\n`).join(""))
        .digest("hex");
    expect(model.calls.map(hashOf)).toEqual(hashes);
    const system = model.calls[0]!.messages[0]!;
    expect(system.role === "system" && system.content).toContain("Be brief.");
    expect(model.calls[0]!.tools.map((tool) => tool.name)).toEqual(["echo", "store"]);
  });

  it("calls onEvent once per stored event, in order, after each append", async () => {
    const seen: number[] = [];
    const journal = createMemoryJournal();
    const { harness } = rig(script(), { tools: [echoTool, store.tool], journal, onEvent: (event) => seen.push(event.seq) });
    const { runId } = await harness.start("do the thing");
    expect(seen).toEqual((await readAll(journal, runId)).map((event) => event.seq));
  });

  it("getState folds the journal; resume of a finished run calls nothing", async () => {
    const { harness, model } = rig(script(), { tools: [echoTool, store.tool] });
    const result = await harness.start("do the thing");
    expect(await harness.getState(result.runId)).toEqual(result.state);
    const calls = model.calls.length;
    const again = await harness.resume(result.runId);
    expect(again.outcome).toEqual(result.outcome);
    expect(again.state).toEqual(result.state);
    expect(model.calls.length).toBe(calls);
  });

  it("rejects unknown runs with RUN_NOT_FOUND and taken run ids with RUN_ALREADY_EXISTS", async () => {
    const { harness } = rig([say("a")]);
    expect((await rejectionOf(harness.resume("run_missing"))).code).toBe("RUN_NOT_FOUND");
    expect((await rejectionOf(harness.getState("run_missing"))).code).toBe("RUN_NOT_FOUND");
    expect((await rejectionOf(readAllFrom(harness, "run_missing"))).code).toBe("RUN_NOT_FOUND");
    await harness.start("t", { runId: "run_fixed", sessionId: "session_fixed" });
    expect((await harness.getState("run_fixed")).sessionId).toBe("session_fixed");
    expect((await rejectionOf(harness.start("t", { runId: "run_fixed" }))).code).toBe("RUN_ALREADY_EXISTS");
    expect((await rejectionOf(harness.start("t", { runId: "not an id" }))).code).toBe("CONFIG_INVALID");
  });

  it("propagates JOURNAL_CONFLICT when another worker wrote first", async () => {
    const inner = createMemoryJournal();
    let raced = false;
    // Before the harness's third append, "another worker" appends the same events (under the
    // same lease: a writer without it is refused with RUN_LEASE_HELD before any conflict).
    let appends = 0;
    const racing: JournalV1 = {
      ...inner,
      specificationVersion: "v1",
      capabilities: inner.capabilities,
      read: (scope, options) => inner.read(scope, options),
      async append(scope, expectedSeq, drafts, options) {
        appends += 1;
        if (appends === 3 && !raced) {
          raced = true;
          await inner.append(scope, expectedSeq, drafts, options);
        }
        return inner.append(scope, expectedSeq, drafts, options);
      },
    };
    const { harness } = rig(script(), { tools: [echoTool, store.tool], journal: racing });
    const error = await rejectionOf(harness.start("t"));
    expect(error.code).toBe("JOURNAL_CONFLICT");
  });

  it("validates its options with CONFIG_INVALID", () => {
    expect(() => rig([], { maxTurns: 0 })).toThrow(YokeError);
    expect(() => rig([], { tools: [echoTool, echoTool] })).toThrow(/two tools are named "echo"/);
    expect(() => rig([], { tenantId: "" })).toThrow(YokeError);
    expect(() => rig([], { modelRetries: -1 })).toThrow(YokeError);
  });

  it("keeps RUNTIME_VERSION in step with package.json", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
    expect(RUNTIME_VERSION).toBe(manifest.version);
  });

  it("rebuilds every turn's request from the events alone, byte for byte", async () => {
    const { harness, model } = rig(script(), { tools: [echoTool, store.tool], systemPrompt: "S" });
    const { runId } = await harness.start("t");
    const events = await readAllFrom(harness, runId);
    for (const turn of [1, 2, 3]) {
      const rebuilt = reconstructRequestFromEvents(events, turn);
      expect(canonicalJson(rebuilt.request)).toBe(canonicalJson(model.calls[turn - 1]));
    }
  });
});

async function readAllFrom(harness: { events(runId: string): AsyncIterable<JournalEvent> }, runId: string): Promise<JournalEvent[]> {
  const events: JournalEvent[] = [];
  for await (const event of harness.events(runId)) events.push(event);
  return events;
}
