// Runs one golden scenario and writes down everything the old code produced: the journal of
// every stream, the request bytes the provider was sent, what each harness call returned, the
// fold of every stream, and, for every commit boundary, what a fresh harness resuming a copy of
// that prefix appends.
import { join } from "node:path";
import { createMemoryJournal, createSqliteJournal } from "@yoke/journal";
import { canonicalJson, type JournalEvent, type JournalV1 } from "@yoke/protocol";
import type { Harness } from "@yoke/runtime";
import { RUN, TENANT, committingJournal, corpusHarness, recordingProvider, stillClock, type Commit, type RecordingProvider } from "./corpus-kit.js";
import { errorOf, foldLines, plain } from "./fold-digest.js";
import type { Scenario, ScenarioEnv } from "./scenario.js";

/** What one scenario produced, one file each, one canonical JSON value a line. */
export interface ScenarioRecord {
  readonly journal: string[];
  readonly requests: string[];
  readonly results: string[];
  readonly fold: string[];
  readonly resumes: string[];
}

export const RECORD_FILES = ["journal", "requests", "results", "fold", "resumes"] as const;

type Streams = Map<string, JournalEvent[]>;

async function streamsOf(journal: JournalV1): Promise<Streams> {
  const streams: Streams = new Map();
  const runIds: string[] = [];
  for await (const run of journal.listRuns(TENANT)) runIds.push(run.runId);
  runIds.sort();
  for (const runId of runIds) {
    const events: JournalEvent[] = [];
    for await (const event of journal.read({ tenantId: TENANT, runId })) events.push(event);
    streams.set(runId, events);
  }
  return streams;
}

function journalLines(streams: Streams): string[] {
  return [...streams.values()].flatMap((events) => events.map((event) => canonicalJson(event)));
}

/** What a harness call returned (or threw), without the state (the journal and its fold hold that). */
export async function outcomeOf(call: () => Promise<unknown>): Promise<string> {
  try {
    const result = (await call()) as Record<string, unknown> | undefined;
    if (result === undefined || typeof result !== "object") return canonicalJson({ returned: result ?? null });
    const { state: _state, ...rest } = result;
    return canonicalJson(plain(rest));
  } catch (error) {
    return canonicalJson({ error: errorOf(error) });
  }
}

interface Session {
  readonly journal: JournalV1 & { readonly commits: Commit[] };
  readonly provider: RecordingProvider;
  readonly harness: Harness;
  readonly env: ScenarioEnv;
}

function session(scenario: Scenario, store: JournalV1, shared: Record<string, unknown>, start: number, idStart: number, skip: readonly number[]): Session {
  let provider: RecordingProvider | undefined;
  const journal = committingJournal(store, () => provider);
  const clock = stillClock(start);
  let other: Harness | undefined;
  const env: ScenarioEnv = {
    shared,
    clock,
    other: () => (other ??= corpusHarness(journal, recordingProvider({ queues: [[]] }), clock, idStart + 900, world.options)),
    successor: (options) => corpusHarness(journal, provider!, clock, idStart + 800, { ...world.options, ...options }),
  };
  const world = scenario.world(env);
  provider = recordingProvider(world.script, skip);
  return { journal, provider, env, harness: corpusHarness(journal, provider, clock, idStart, world.options) };
}

/** Copies the first `k` commits of `streams` into `store`, commit by commit, as their drafts. */
async function copyPrefix(store: JournalV1, streams: Streams, commits: readonly Commit[], k: number): Promise<void> {
  for (const commit of commits.slice(0, k)) {
    const events = streams.get(commit.runId)!.slice(commit.after, commit.after + commit.count);
    const drafts = events.map(({ type, at, causationId, data }) => ({ type, at, causationId, data }));
    await store.append({ tenantId: TENANT, runId: commit.runId }, commit.after, drafts);
  }
}

/** The events `after` holds past each stream's length in `before`. */
function added(before: Streams, after: Streams): string[] {
  return [...after.entries()].flatMap(([runId, events]) => events.slice(before.get(runId)?.length ?? 0).map((event) => canonicalJson(event)));
}

/** Resumes a copy of the first `k` commits in `store` with the script continued from there. */
async function resumeFrom(
  scenario: Scenario,
  store: JournalV1,
  shared: Record<string, unknown>,
  streams: Streams,
  commits: readonly Commit[],
  k: number,
): Promise<string[]> {
  await copyPrefix(store, streams, commits, k);
  const prefix = await streamsOf(store);
  const original = new Map([...streams.entries()].map(([runId, events]) => [runId, events.slice(0, prefix.get(runId)?.length ?? 0)]));
  const copied = journalLines(prefix);
  const expected = journalLines(new Map([...original.entries()].filter(([runId]) => prefix.has(runId))));
  if (canonicalJson(copied) !== canonicalJson(expected)) throw new Error(`${scenario.name}: the copy of prefix ${k} does not hash as the original did`);
  const lastAt = Math.max(...[...prefix.values()].flat().map((event) => event.at));
  const resumed = session(scenario, store, shared, lastAt, 1_000, commits[k - 1]!.consumed);
  const result = await outcomeOf(() => resumed.harness.resume(RUN));
  const after = await streamsOf(store);
  const commit = commits[k - 1]!;
  return [
    canonicalJson({ prefix: k, commit: { runId: commit.runId, events: commit.after + commit.count }, result: JSON.parse(result) }),
    ...resumed.provider.requests,
    ...added(prefix, after),
  ];
}

export interface RecordOptions {
  /** A directory for the SQLite files of the scenarios that resume on SQLite too. */
  readonly directory: string;
}

/**
 * Everything `scenario` produces on this code. With `sqlite`, each resume also runs on a
 * fresh SQLite file and must append exactly what the memory journal's resume did.
 */
export async function recordScenario(scenario: Scenario, options: RecordOptions): Promise<ScenarioRecord> {
  const store = createMemoryJournal();
  const shared: Record<string, unknown> = {};
  const first = session(scenario, store, shared, stillClock().now(), 1, []);
  const results = await scenario.drive({ harness: first.harness, env: first.env, outcomeOf });
  const streams = await streamsOf(store);
  const commits = first.journal.commits;
  const resumes: string[] = [];
  for (let k = 1; k <= commits.length; k += 1) {
    const lines = await resumeFrom(scenario, createMemoryJournal(), shared, streams, commits, k);
    if (scenario.sqlite) {
      const sqlite = await createSqliteJournal({ filename: join(options.directory, `${scenario.name}-${k}.sqlite`) });
      try {
        const onFile = await resumeFrom(scenario, sqlite, shared, streams, commits, k);
        if (canonicalJson(onFile) !== canonicalJson(lines)) {
          throw new Error(
            `${scenario.name}: resuming prefix ${k} on SQLite appended other bytes than on memory:\n${onFile.join("\n")}\n---\n${lines.join("\n")}`,
          );
        }
      } finally {
        await sqlite.close();
      }
    }
    resumes.push(...lines);
  }
  return { journal: journalLines(streams), requests: first.provider.requests, results, fold: foldLines(streams), resumes };
}
