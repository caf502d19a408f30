// What replaying a recorded corpus journal needs: the journal loaded into a store (every
// stream, appended as drafts so its chain is recomputed and must match the recorded hashes),
// and the harness options of the scenario that produced it, as the corpus built them.
import { readFileSync } from "node:fs";
import { createMemoryJournal } from "@yoke/journal";
import { canonicalJson, type EventDraft, type JournalEvent, type JournalV1 } from "@yoke/protocol";
import type { HarnessOptions } from "@yoke/runtime";
import { RUN, RUNTIME_VERSION_PIN, TENANT, instantSleep, recordingProvider, stillClock } from "./corpus-kit.js";
import type { Scenario, ScenarioEnv } from "./scenario.js";

/** A recorded journal: its events by stream, in seq order. */
export type RecordedStreams = Map<string, JournalEvent[]>;

export function readJournalLines(path: string): RecordedStreams {
  const text = readFileSync(path, "utf8");
  const streams: RecordedStreams = new Map();
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const event = JSON.parse(line) as JournalEvent;
    if (!streams.has(event.runId)) streams.set(event.runId, []);
    streams.get(event.runId)!.push(event);
  }
  return streams;
}

/**
 * A memory journal holding `streams`. Each stream is appended as drafts, then its recomputed
 * hashes must be the recorded ones: a corpus line edited by hand is caught here.
 */
export async function loadJournal(streams: RecordedStreams): Promise<JournalV1> {
  const journal = createMemoryJournal();
  for (const [runId, events] of streams) {
    const tenantId = events[0]!.tenantId;
    const drafts: EventDraft[] = events.map(({ type, at, causationId, data }) => ({ type, at, causationId, data }));
    await journal.append({ tenantId, runId }, 0, drafts);
    const stored: JournalEvent[] = [];
    for await (const event of journal.read({ tenantId, runId })) stored.push(event);
    if (canonicalJson(stored) !== canonicalJson(events)) {
      const seq = stored.findIndex((event, index) => canonicalJson(event) !== canonicalJson(events[index]));
      throw new Error(`stream ${runId}: event ${seq} does not hash as recorded (the corpus file was edited)`);
    }
  }
  return journal;
}

/** The runs of a corpus journal that are neither an inbox, a session stream nor a child: each one replays (a session's runs one by one). */
export function rootRuns(streams: RecordedStreams): { tenantId: string; runId: string }[] {
  return [...streams.entries()]
    .filter(([runId, events]) => {
      const data = events[0]?.data as { parent?: unknown; inboxOf?: unknown; sessionOf?: unknown } | undefined;
      return !runId.includes(":") && data?.parent === undefined && data?.inboxOf === undefined && data?.sessionOf === undefined;
    })
    .map(([runId, events]) => ({ tenantId: events[0]!.tenantId, runId }));
}

/** The run a corpus journal replays: the scenario's run when present, else the first root run. */
export function rootRun(streams: RecordedStreams): { tenantId: string; runId: string } {
  const roots = rootRuns(streams);
  const root = roots.find(({ runId }) => runId === RUN) ?? roots[0];
  if (root === undefined) throw new Error("the journal holds no run to replay");
  return root;
}

/** The options `scenario` builds its harness from, as the corpus does (its world's options, its script's provider, the pinned runtime version). */
export function scenarioOptions(scenario: Scenario): HarnessOptions {
  const env: ScenarioEnv = {
    shared: {},
    clock: stillClock(),
    other: () => {
      throw new Error("replay never runs a scenario's tools, so nothing reaches for another harness");
    },
    successor: () => {
      throw new Error("replay drives the record with one harness: a recorded release change is an input it gives back");
    },
  };
  const world = scenario.world(env);
  return {
    tenantId: TENANT,
    sleep: instantSleep,
    runtimeVersion: RUNTIME_VERSION_PIN,
    ...world.options,
    provider: recordingProvider(world.script),
  } as HarnessOptions;
}

/**
 * The crashed-and-resumed journals a scenario's `resumes.jsonl` describes: for each commit
 * boundary, every stream cut where the first `k` commits left it (block `k` names the `k`-th
 * commit: its stream and that stream's length after it), then what a fresh harness resuming
 * the run appended.
 */
export function resumedJournals(journal: RecordedStreams, resumesPath: string): { prefix: number; streams: RecordedStreams }[] {
  const ends = new Map<string, number>();
  const found: { prefix: number; streams: RecordedStreams }[] = [];
  for (const line of readFileSync(resumesPath, "utf8").split("\n")) {
    if (line === "") continue;
    const value = JSON.parse(line) as { prefix?: number; commit?: { runId: string; events: number }; runId?: string; hash?: string };
    if (value.prefix !== undefined && value.commit !== undefined) {
      ends.set(value.commit.runId, value.commit.events);
      const streams: RecordedStreams = new Map();
      for (const [runId, events] of journal) if (ends.has(runId)) streams.set(runId, events.slice(0, ends.get(runId)));
      found.push({ prefix: value.prefix, streams });
    } else if (value.hash !== undefined && value.runId !== undefined) {
      const streams = found.at(-1)!.streams;
      if (!streams.has(value.runId)) streams.set(value.runId, []);
      streams.get(value.runId)!.push(value as unknown as JournalEvent);
    }
  }
  return found;
}
