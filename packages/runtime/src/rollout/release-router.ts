import {
  EVENT_SCHEMA_VERSION,
  YokeError,
  compareReleases,
  newId,
  parseId,
  systemClock,
  ulidIdSource,
  type IdSource,
  type Release,
  type YokeEvent,
} from "@yoke/protocol";
import { createHarness } from "../harness.js";
import type { Harness, HarnessOptions, StartOptions } from "../harness-types.js";
import type { RunStream } from "../stream/run-stream-types.js";
import type { UserInput } from "../user-input.js";
import { RUNTIME_VERSION } from "../version.js";
import { releaseMatches, type ReleaseTag } from "./release-match.js";
import { stableFraction } from "./stable-share.js";

/** A harness and the release it journals in `run.started.data.release`. */
export interface ReleaseTarget<Output = unknown> {
  readonly harness: Harness<Output>;
  readonly release: ReleaseTag;
}

/** Which of a router's two releases. */
export type ReleaseName = "current" | "candidate";

export interface ReleaseRouterOptions<Output = unknown> {
  readonly current: ReleaseTarget<Output>;
  readonly candidate: ReleaseTarget<Output>;
  /** The share of new runs pinned to the candidate, in [0, 1]. 0 sends none (a rollback), 1 all. */
  readonly share: number;
  /**
   * What a new run is routed by: the same key always goes the same way. Default: the start's
   * `sessionId` (every run of a session on one release), else its `runId`. When it gives no
   * key, the router draws the run's id (from `ids`) and routes by that.
   */
  readonly key?: (input: UserInput, options: StartOptions) => string | undefined;
  /** Where drawn run ids come from. Default: ULIDs from the system clock. */
  readonly ids?: IdSource;
}

/**
 * A harness that pins each new run to the current or the candidate release by a stable hash
 * of its key, and drives every existing run with the harness of the release it is pinned to.
 */
export interface ReleaseRouter<Output = unknown> extends Harness<Output> {
  /** The share of new runs the candidate gets now. */
  readonly share: number;
  /** Changes the share for runs started from now on; runs already pinned keep their release. CONFIG_INVALID outside [0, 1]. */
  setShare(share: number): void;
  /** The release a new run with this key goes to at the current share. */
  releaseFor(key: string): ReleaseName;
  /** The release run `runId` is pinned to. RUN_NOT_FOUND, or RELEASE_INCOMPATIBLE when it is pinned to neither. */
  pinnedTo(runId: string): Promise<ReleaseName>;
}

/**
 * Canary routing: a share of new runs pinned to a candidate release, by a deterministic rule
 * (the first 48 bits of the SHA-256 of the run's key, below the share). A run is pinned for
 * life: `resume`, `approve`, `deny`, `interrupt`, `getState`, `events` and `resumeStream` of an
 * existing run go to the harness of the release its `run.started` names (`releaseMatches`).
 * Rolling back is `setShare(0)`: no new run goes to the candidate, and the candidate's runs in
 * flight are still driven by the candidate until they end.
 *
 * CONFIG_INVALID: a share outside [0, 1], or two releases the matching rule cannot tell apart.
 *
 * @example
 * ```ts
 * const router = createReleaseRouter({ current: releaseTarget(options), candidate: releaseTarget({ ...options, policy: next, runtimeVersion: "app@2" }), share: 0.1 });
 * const result = await router.start("Summarize notes.txt", { sessionId: "session_42" });
 * router.setShare(0); // rollback: in-flight candidate runs still resume on the candidate
 * ```
 */
export function createReleaseRouter<Output>(options: ReleaseRouterOptions<Output>): ReleaseRouter<Output> {
  let share = checkedShare(options.share);
  const { current, candidate } = options;
  if (releaseMatches(current.release, candidate.release) || releaseMatches(candidate.release, current.release)) {
    throw new YokeError(
      "CONFIG_INVALID",
      "createReleaseRouter: the current and candidate releases are the same to the matching rule, so a run could not be routed back to its own",
      {
        details: { option: "candidate" },
      },
    );
  }
  const ids = options.ids ?? ulidIdSource({ clock: systemClock() });
  const keyOf = options.key ?? ((_input: UserInput, start: StartOptions) => start.sessionId ?? start.runId);
  const targets = { current, candidate };
  const releaseFor = (key: string): ReleaseName => (stableFraction(key) < share ? "candidate" : "current");

  /** The start's options with a run id when the key needs one, and the release the key picks. */
  const routeNew = (input: UserInput, start: StartOptions): { harness: Harness<Output>; start: StartOptions } => {
    let key = keyOf(input, start);
    let routed = start;
    if (key === undefined) {
      key = start.runId === undefined ? newId(ids, "run") : parseId("run", start.runId);
      routed = { ...start, runId: key };
    }
    return { harness: targets[releaseFor(key)].harness, start: routed };
  };

  // Both releases may share one journal and tenant (the usual canary) or not: look in each.
  const runStarted = async (runId: string) => (await firstEvent(current.harness, runId)) ?? (await firstEvent(candidate.harness, runId));
  const pinnedTo = async (runId: string): Promise<ReleaseName> => {
    const started = await runStarted(runId);
    if (started === undefined) throw new YokeError("RUN_NOT_FOUND", `run ${runId} is in neither release's journal`, { details: { runId } });
    const pinned = started.type === "run.started" ? started.data.release : undefined;
    if (releaseMatches(pinned, current.release)) return "current";
    if (releaseMatches(pinned, candidate.release)) return "candidate";
    const pinnedRelease: Release = pinned ?? { runtime: "(none)", eventSchemaVersion: 0 };
    const running: Release = { runtime: current.release.runtime, eventSchemaVersion: EVENT_SCHEMA_VERSION };
    throw new YokeError(
      "RELEASE_INCOMPATIBLE",
      `run ${runId} is pinned to release ${JSON.stringify(pinned ?? null)}, which is neither the current nor the candidate release`,
      {
        details: {
          tenantId: started.tenantId,
          runId,
          pinned: pinnedRelease,
          running,
          differences: compareReleases(pinnedRelease, running),
          driveWith: pinnedRelease.runtime,
          pinnedBy: { seq: started.seq, type: started.type },
        },
      },
    );
  };
  const owner = async (runId: string) => targets[await pinnedTo(runId)].harness;

  return {
    get share() {
      return share;
    },
    setShare(next) {
      share = checkedShare(next);
    },
    releaseFor,
    pinnedTo,
    async start(input, start = {}) {
      const routed = routeNew(input, start);
      return routed.harness.start(input, routed.start);
    },
    stream(task, streamOptions = {}) {
      const routed = routeNew(task, streamOptions);
      return routed.harness.stream(task, routed.start);
    },
    async startOrResume(input, start) {
      if (start?.runId !== undefined && (await runStarted(start.runId)) !== undefined) return (await owner(start.runId)).startOrResume(input, start);
      const routed = routeNew(input, start);
      return routed.harness.startOrResume(input, { ...start, ...routed.start });
    },
    resumeStream: (runId, resumeOptions) =>
      deferredStream(
        runId,
        owner(runId).then((harness) => harness.resumeStream(runId, resumeOptions)),
      ),
    resume: async (runId, resumeOptions) => (await owner(runId)).resume(runId, resumeOptions),
    approve: async (runId, approvalId, approveOptions) => (await owner(runId)).approve(runId, approvalId, approveOptions),
    deny: async (runId, approvalId, denyOptions) => (await owner(runId)).deny(runId, approvalId, denyOptions),
    interrupt: async (runId, request) => (await owner(runId)).interrupt(runId, request),
    getState: async (runId) => (await owner(runId)).getState(runId),
    events: (runId) => ({
      async *[Symbol.asyncIterator]() {
        yield* (await owner(runId)).events(runId);
      },
    }),
    async close() {
      await current.harness.close();
      await candidate.harness.close();
    },
  };
}

/** A harness built from options, with the release it journals (`runtimeVersion`, or this runtime's). */
export function releaseTarget<Output = unknown>(options: HarnessOptions): ReleaseTarget<Output> {
  return { harness: createHarness(options) as Harness<Output>, release: { runtime: options.runtimeVersion ?? `@yoke/runtime@${RUNTIME_VERSION}` } };
}

function checkedShare(share: unknown): number {
  if (typeof share !== "number" || !Number.isFinite(share) || share < 0 || share > 1) {
    throw new YokeError("CONFIG_INVALID", `createReleaseRouter: share must be a number in [0, 1], not ${String(share)}`, { details: { option: "share" } });
  }
  return share;
}

async function firstEvent(harness: Harness, runId: string): Promise<YokeEvent | undefined> {
  try {
    for await (const event of harness.events(runId)) return event;
    return undefined;
  } catch (error) {
    if (YokeError.hasCode(error, "RUN_NOT_FOUND") || YokeError.hasCode(error, "JOURNAL_NOT_INITIALIZED")) return undefined;
    throw error;
  }
}

/** A stream of a run whose harness is known only once its release is read. */
function deferredStream<Output>(runId: string, opening: Promise<RunStream<Output>>): RunStream<Output> {
  let dropped = 0;
  const result = opening.then((stream) => stream.result);
  // The caller may read neither: a failed lookup must not surface as an unhandled rejection.
  opening.catch(() => undefined);
  result.catch(() => undefined);
  return {
    runId,
    result,
    async cancel(reason) {
      await (await opening).cancel(reason);
    },
    get dropped() {
      return dropped;
    },
    async *[Symbol.asyncIterator]() {
      const stream = await opening;
      try {
        yield* stream;
      } finally {
        dropped = stream.dropped;
      }
    },
  };
}
