import { YokeError, type JournalV1, type SchemaLike } from "@yoke/protocol";
import { createMemoryJournal } from "@yoke/journal";
import { createAdjustedHarness } from "../harness.js";
import type { Harness } from "../harness-interface.js";
import type { HarnessOptions } from "../harness-types.js";
import type { HarnessDeps } from "../run-context.js";
import { harnessOptionsOf } from "./harness-options-registry.js";
import { readRecordedRun } from "./recorded-run.js";
import { worldBefore } from "./recorded-world.js";
import { recordedRegistry } from "./recorded-registry.js";
import { recordedRelease } from "./recorded-release.js";
import { recordedIds } from "./recorded-ids.js";
import { recordedClock, recordedExecutor, recordedProvider, recordedTool } from "./recorded-inputs.js";
import { recordedVerifier } from "./recorded-verifier.js";
import { driveRecorded } from "./replay-drive.js";
import { ReplayTape, replayJournal } from "./replay-tape.js";
import { SCHEMA_ADDITIONS, type SchemaAddition } from "./schema-additions.js";

/** The recorded run to replay: the journal holding it (every stream beside it too), its tenant and id. */
export interface ReplaySource {
  readonly journal: JournalV1;
  readonly tenantId: string;
  readonly runId: string;
}

export interface ReplayOptions {
  /** Cancels the replay between harness calls. */
  readonly signal?: AbortSignal;
  /**
   * Fields added to events since a record could have been made: where the record lacks one and
   * the replay journals it, the two agree. Default: every field Yoke added since schema 1
   * (`SCHEMA_ADDITIONS`); `[]` holds an old record to today's exact shape.
   */
  readonly schemaAdditions?: readonly SchemaAddition[];
  /**
   * What a completion check's verdict comes from. `"recorded"` (default): the record, like a
   * tool's outcome: replay rebuilds the journal, not the world, and a check that reads the world
   * (the files the run's tools wrote, a database) would judge a world replay never rebuilt.
   * `"rerun"`: verifiers declared `replaySafe` (and `checkCompletion`) run again and their
   * verdict is compared; use it when every check reads only its input (the events and the
   * answer: schema, invariant and evidence verifiers) or when the harness given to replay points
   * its checks at a restored world. Verifiers not declared `replaySafe` never run again.
   */
  readonly checks?: "recorded" | "rerun";
}

/**
 * What a replay found: the recorded run re-driven through the current code journaled the same
 * events. `status`: where the record ends (`in_flight`: mid-run, e.g. the process died and was
 * not resumed; replay stopped where the record stops and says so).
 */
export interface ReplayReport {
  readonly runId: string;
  /** Events of the run replayed and found equal to the record. */
  readonly events: number;
  /** Events per stream of the replay journal: the run, its subagents (replayed and compared too), its interrupt inbox (delivered from the record), its session's stream (as recorded up to the run's entry, replayed from there). */
  readonly streams: Readonly<Record<string, number>>;
  readonly status: "finished" | "waiting" | "in_flight";
  /** Harnesses the replay drove: 1, plus 1 per recorded process death resumed on a fresh one. */
  readonly processes: number;
}

/**
 * Replays a recorded run through the current code: the harness (or its options) is rebuilt
 * with a fresh journal, the recorded model answers, tool outcomes, ids and times, and the run
 * is started and driven as the record says; each event the current code journals is compared
 * with the recorded one at its seq. Never calls the provider, never runs a tool; checks give
 * their recorded verdict (with `checks: "rerun"`, verifiers declared `replaySafe` run again).
 *
 * Rejects with REPLAY_DIVERGED naming the first differing event (`details`: runId, seq,
 * type, path, recorded, replayed); JOURNAL_CHAIN_BROKEN, JOURNAL_SCHEMA_UNSUPPORTED,
 * EVENT_INVALID or REPLAY_UNSUPPORTED for a record that cannot be replayed.
 *
 * @example
 * ```ts
 * const report = await replay({ journal, tenantId: "tenant_a", runId }, harness);
 * report.events; // every event of the run, replayed and equal
 * ```
 */
export async function replay(source: ReplaySource, harness: Harness | HarnessOptions, options: ReplayOptions = {}): Promise<ReplayReport> {
  const base = optionsFrom(harness);
  const recorded = await readRecordedRun(source.journal, { tenantId: source.tenantId, runId: source.runId });
  const tape = new ReplayTape(recorded, createMemoryJournal(), options.schemaAdditions ?? SCHEMA_ADDITIONS);
  const world = worldBefore(recorded);
  await tape.seed(world);
  const journal = replayJournal(tape);
  const ids = recordedIds(recorded.streams.values(), new Set([source.runId]), world.streams.values());
  tape.ids = ids;
  const clock = recordedClock(tape);
  const provider = recordedProvider(base.provider, tape);
  const registry = base.registry === undefined ? undefined : recordedRegistry(base.registry, tape);
  const rerun = checksOption(options.checks) === "rerun";
  const adjust = (deps: HarnessDeps): HarnessDeps => {
    tape.live.add(deps.interrupts.live);
    tape.timers.pollMs = deps.interrupts.pollMs;
    return adjusted(deps);
  };
  const adjusted = (deps: HarnessDeps): HarnessDeps => ({
    ...deps,
    executor: recordedExecutor(tape, deps.executor),
    loopControl: { ...deps.loopControl, verifiers: deps.loopControl.verifiers.map((verifier) => recordedVerifier(verifier, tape, rerun)) },
    settleRelease: recordedRelease(tape),
  });
  const { onEvent: _onEvent, ...rest } = base;
  const fresh = () => {
    if (options.signal?.aborted) throw new YokeError("CANCELLED", "replay was cancelled", { cause: options.signal.reason });
    tape.process += 1;
    return createAdjustedHarness(
      {
        ...rest,
        tenantId: source.tenantId,
        journal,
        provider,
        ...(base.tools === undefined ? {} : { tools: base.tools.map((tool) => recordedTool(tool, tape)) }),
        ...(registry === undefined ? {} : { registry }),
        clock,
        ids,
        sleep: async () => undefined,
        timers: tape.timers,
        lease: false,
      },
      adjust,
    );
  };
  const end = await driveRecorded(tape, fresh);
  const streams: Record<string, number> = {};
  for (const runId of recorded.streams.keys()) {
    if (tape.given.has(runId)) continue;
    const length = (await tape.store.head({ tenantId: source.tenantId, runId }))?.length;
    if (length !== undefined) streams[runId] = length;
  }
  return {
    runId: source.runId,
    events: tape.lengthOf(source.runId),
    streams,
    status: end.status,
    processes: end.processes,
  };
}

function checksOption(checks: unknown): "recorded" | "rerun" {
  if (checks === undefined || checks === "recorded" || checks === "rerun") return checks ?? "recorded";
  throw new YokeError("CONFIG_INVALID", `replay: checks must be "recorded" or "rerun", not ${JSON.stringify(checks)}`, { details: { option: "checks" } });
}

function optionsFrom(harness: Harness | HarnessOptions): HarnessOptions<SchemaLike | undefined> {
  if (isHarness(harness)) {
    const options = harnessOptionsOf(harness);
    if (options === undefined) {
      throw new YokeError("REPLAY_UNSUPPORTED", "replay needs a harness made by createHarness (or its options): this one's options are unknown", {
        details: { reason: "unknown_harness" },
      });
    }
    return options;
  }
  if (harness?.provider === undefined)
    throw new YokeError("CONFIG_INVALID", "replay: harness must be a Harness or HarnessOptions with a provider", { details: { option: "harness" } });
  return harness as HarnessOptions<SchemaLike | undefined>;
}

function isHarness(value: Harness | HarnessOptions): value is Harness {
  return typeof (value as Harness).start === "function" && typeof (value as Harness).resume === "function";
}
