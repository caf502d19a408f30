// replay(): a recorded run re-driven through the current code journals the same events, never
// reaching a provider or a tool; a record it cannot trust or read is a typed error naming the event.
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryJournal, createSqliteJournal } from "@yoke/journal";
import { EVENT_SCHEMA_VERSION, YokeError, sequentialIdSource, steppingClock, type JournalEvent, type JournalV1, type ProviderAdapterV1 } from "@yoke/protocol";
import { callTools, rejectionOf, say } from "@yoke/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { TENANT, echoTool, readAll, rig } from "../__fixtures__/harness-fixtures.js";
import { defineTool } from "../define-tool.js";
import { createHarness } from "../harness.js";
import type { HarnessOptions } from "../harness-types.js";
import { replay } from "./replay.js";

const RUN = "run_replay";
// The journal's SQLite driver, reached directly to edit a row behind the store's back (typed for what this file uses).
const Database = createRequire(import.meta.url)("better-sqlite3") as new (
  filename: string,
) => { prepare(sql: string): { get(...values: unknown[]): unknown; run(...values: unknown[]): unknown }; close(): void };
const directory = mkdtempSync(join(tmpdir(), "yoke-replay-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function recordToolTurn(journal: JournalV1 = createMemoryJournal()) {
  const { harness } = rig([callTools([{ name: "echo", args: { text: "hi" } }]), say("done")], { journal });
  const result = await harness.start("Echo hi.", { runId: RUN });
  expect(result.outcome?.status).toBe("completed");
  return { journal: journal, events: await readAll(journal, RUN) };
}

/** A provider and a tool that fail the test if replay ever reaches them. */
const refusingProvider: ProviderAdapterV1 = {
  specificationVersion: "v1",
  provider: "scripted",
  modelId: "scripted-1",
  capabilities: createHarnessCapabilities(),
  generate: async () => {
    throw new Error("replay called the provider");
  },
};
function createHarnessCapabilities() {
  return rig([]).model.capabilities;
}
const refusingEcho = defineTool({
  name: "echo",
  description: "Repeat the text.",
  input: z.object({ text: z.string() }),
  sideEffect: "none",
  execute: async () => {
    throw new Error("replay ran the tool");
  },
});
const replayOptions = (): HarnessOptions => ({ provider: refusingProvider, tools: [refusingEcho], tenantId: TENANT });

/** A read-only journal holding `events` as given (a record written by someone else), its chain taken on trust. */
function recordOf(events: readonly JournalEvent[]): JournalV1 {
  const scope = { tenantId: TENANT, runId: RUN };
  return {
    specificationVersion: "v1",
    capabilities: createMemoryJournal().capabilities,
    append: async () => {
      throw new YokeError("JOURNAL_READ_ONLY", "read only");
    },
    async *read(_scope, options) {
      yield* events.slice(options?.fromSeq ?? 0, options?.toSeq ?? events.length);
    },
    head: async () => ({ length: events.length, hash: events.at(-1)!.hash }),
    verify: async () => ({ ok: true, events: events.length, headHash: events.at(-1)!.hash }),
    async *listRuns() {
      yield { ...scope, length: events.length, firstAt: events[0]!.at, lastAt: events.at(-1)!.at } as never;
    },
    close: async () => undefined,
  };
}

describe("replay", () => {
  it("replays a tool turn event for event, never calling the provider or running the tool", async () => {
    const { journal, events } = await recordToolTurn();
    const report = await replay({ journal, tenantId: TENANT, runId: RUN }, replayOptions());
    expect(report).toEqual({ runId: RUN, events: events.length, streams: { [RUN]: events.length }, status: "finished", processes: 1 });
  });

  it("takes a harness made by createHarness and rebuilds it from its options", async () => {
    const { journal, events } = await recordToolTurn();
    const harness = createHarness(replayOptions());
    expect((await replay({ journal, tenantId: TENANT, runId: RUN }, harness)).events).toBe(events.length);
  });

  it("refuses a harness whose options it cannot know (REPLAY_UNSUPPORTED)", async () => {
    const { journal } = await recordToolTurn();
    const { harness } = rig([]);
    const foreign = { ...harness };
    const error = await rejectionOf(replay({ journal, tenantId: TENANT, runId: RUN }, foreign));
    expect(error).toMatchObject({ code: "REPLAY_UNSUPPORTED", details: { reason: "unknown_harness" } });
  });

  it("a run missing from the journal is RUN_NOT_FOUND", async () => {
    const error = await rejectionOf(replay({ journal: createMemoryJournal(), tenantId: TENANT, runId: RUN }, replayOptions()));
    expect(error).toMatchObject({ code: "RUN_NOT_FOUND" });
  });
});

describe("replay refuses a record it cannot read, naming the event", () => {
  it("an event from a newer schema version: JOURNAL_SCHEMA_UNSUPPORTED at its seq", async () => {
    const { events } = await recordToolTurn();
    const newer = events.map((event) => (event.seq === 3 ? { ...event, schemaVersion: EVENT_SCHEMA_VERSION + 1 } : event));
    const error = await rejectionOf(replay({ journal: recordOf(newer), tenantId: TENANT, runId: RUN }, replayOptions()));
    expect(error).toMatchObject({ code: "JOURNAL_SCHEMA_UNSUPPORTED", details: { seq: 3, schemaVersion: EVENT_SCHEMA_VERSION + 1 } });
  });

  it("an unknown event type: EVENT_INVALID naming the seq and type", async () => {
    const { events } = await recordToolTurn();
    const unknown = events.map((event) => (event.seq === 4 ? { ...event, type: "turn.exploded" } : event));
    const error = await rejectionOf(replay({ journal: recordOf(unknown), tenantId: TENANT, runId: RUN }, replayOptions()));
    expect(error).toMatchObject({ code: "EVENT_INVALID", details: { seq: 4, type: "turn.exploded" } });
  });

  it("an event whose fold throws: a typed error naming the seq", async () => {
    const { events } = await recordToolTurn();
    // A second run.started parses, but no fold accepts it.
    const twice = events.map((event) => (event.seq === 2 ? { ...events[0]!, seq: 2, prevHash: event.prevHash, hash: event.hash } : event));
    const error = await rejectionOf(replay({ journal: recordOf(twice), tenantId: TENANT, runId: RUN }, replayOptions()));
    expect(YokeError.isInstance(error)).toBe(true);
    expect((error as YokeError).details).toMatchObject({ seq: 2 });
    expect((error as YokeError).message).toContain("run.started");
  });

  it("a tampered row (edited, not re-hashed) fails the chain: JOURNAL_CHAIN_BROKEN at its seq", async () => {
    const filename = join(directory, "tampered.sqlite");
    const journal = await createSqliteJournal({ filename });
    await recordToolTurn(journal);
    await journal.close();
    const db = new Database(filename);
    const row = db.prepare("SELECT data FROM events WHERE run_id = ? AND seq = 0").get(RUN) as { data: string };
    expect(row.data).toContain("Echo hi.");
    db.prepare("UPDATE events SET data = ? WHERE run_id = ? AND seq = 0").run(row.data.replace("Echo hi.", "Echo ho."), RUN);
    db.close();
    const reopened = await createSqliteJournal({ filename });
    try {
      const error = await rejectionOf(replay({ journal: reopened, tenantId: TENANT, runId: RUN }, replayOptions()));
      expect(error).toMatchObject({ code: "JOURNAL_CHAIN_BROKEN", details: { runId: RUN, seq: 0 } });
    } finally {
      await reopened.close();
    }
  });

  it("a run truncated mid-run replays what is there and says it stops in flight, never that it finished", async () => {
    const { events } = await recordToolTurn();
    // Cut after the first turn's tool call was admitted: the process died before its outcome.
    const cut = events.findIndex((event) => event.type === "action.admitted") + 1;
    const journal = createMemoryJournal();
    await journal.append(
      { tenantId: TENANT, runId: RUN },
      0,
      events.slice(0, cut).map(({ type, at, causationId, data }) => ({ type, at, causationId, data })),
    );
    const report = await replay({ journal, tenantId: TENANT, runId: RUN }, replayOptions());
    expect(report).toMatchObject({ events: cut, status: "in_flight" });
  });
});

describe("replay of a run that crashed and was resumed", () => {
  it.each([1, 2, 3])("crash before append %i is committed, resumed in a fresh process: 0 divergences", async (allowed) => {
    const journal = createMemoryJournal();
    let appends = 0;
    const dying: JournalV1 = {
      ...journal,
      specificationVersion: "v1",
      capabilities: journal.capabilities,
      read: (scope, options) => journal.read(scope, options),
      head: (scope) => journal.head(scope),
      verify: (scope) => journal.verify(scope),
      listRuns: (tenantId) => journal.listRuns(tenantId),
      close: () => journal.close(),
      async append(scope, expectedSeq, drafts, options) {
        if (appends === allowed) throw new YokeError("INTERNAL", "simulated crash");
        appends += 1;
        return journal.append(scope, expectedSeq, drafts, options);
      },
    };
    const steps = [callTools([{ name: "echo", args: { text: "hi" } }]), say("done")];
    await rejectionOf(rig(steps, { journal: dying }).harness.start("Echo hi.", { runId: RUN }));
    const resumed = createHarness({
      provider: rig(steps).model,
      tools: [echoTool],
      tenantId: TENANT,
      journal,
      clock: steppingClock(1_000, 0),
      ids: sequentialIdSource(1_000),
      sleep: async () => undefined,
    });
    // The fresh process is asked again for the answers the dead one had not journaled.
    const ended = await resumed.resume(RUN).catch((error: unknown) => error);
    expect(ended).toBeDefined();
    const events = await readAll(journal, RUN);
    const report = await replay({ journal, tenantId: TENANT, runId: RUN }, replayOptions());
    expect(report.events).toBe(events.length);
  });
});
