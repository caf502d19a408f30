import {
  EVENT_SCHEMA_VERSION,
  RunStateAccumulator,
  SESSION_STREAM_SUFFIX,
  YokeError,
  type RunLease,
  type RunScope,
  type RunState,
  type YokeEventDraft,
} from "@yoke/protocol";
import type { HarnessDeps } from "../run-context.js";
import type { EarlierRun } from "./session-history.js";

/**
 * A session's stream (`SESSION_STREAM_SUFFIX`): a stream of its own beside the session's runs
 * (as a run's interrupt inbox is beside the run). It records the session's runs in order
 * (`session.appended`); each append names the length it expects, so of two processes sending
 * to one session at once exactly one records its run, and the other sees that run as the
 * session's last (SESSION_BUSY, or it waits).
 */
export { SESSION_STREAM_SUFFIX };

export function sessionScope(tenantId: string, sessionId: string): RunScope {
  return { tenantId, runId: `${sessionId}${SESSION_STREAM_SUFFIX}` };
}

export interface ClaimOptions {
  /** `StartOptions.waitForSession`: `true` waits for the session's last run to end; a number waits at most that many ms. */
  readonly wait?: boolean | number | undefined;
  readonly signal: AbortSignal | undefined;
}

/** How often a send that waits for its session looks again, on the harness's `sleep`. */
export const SESSION_POLL_MS = 100;

/** Run ids this harness is starting (recorded in a session, no `run.started` yet): what tells "starting" from "abandoned" without leases. */
const starting = new WeakMap<HarnessDeps, Set<string>>();

export function markStarting(deps: HarnessDeps, runId: string): () => void {
  const set = starting.get(deps) ?? new Set<string>();
  starting.set(deps, set);
  set.add(runId);
  return () => set.delete(runId);
}

/**
 * Records run `scope.runId` as the session's next run and returns the session's earlier runs,
 * oldest first, every one ended. The caller holds the new run's lease (so another process
 * sees it starting, never abandoned) and writes its `run.started` next.
 *
 * - An unknown session is created with this run as its first. A session whose first runs were
 *   started before it had a stream (a run started without `sessionId` is a session of one) is
 *   found once, by the tenant's runs that name it, and its stream written with them.
 * - A recorded run with no `run.started` is starting while its lease is held, else abandoned
 *   (its starter died between the two appends): skipped, and its lease held until this
 *   run is recorded, so its starter can never start it late.
 * - A run not ended (or starting) makes the session busy: SESSION_BUSY naming it, or, with
 *   `wait`, a wait until it ends.
 * - A retry of a start that crashed after its run was recorded finds it last and goes on.
 */
export async function claimSessionTurn(deps: HarnessDeps, scope: RunScope, sessionId: string, options: ClaimOptions): Promise<EarlierRun[]> {
  const stream = sessionScope(scope.tenantId, sessionId);
  const waitUntil = options.wait === undefined || options.wait === false ? undefined : deps.clock.now() + (options.wait === true ? Infinity : options.wait);
  for (let attempt = 0; ; attempt++) {
    const recorded = await readSession(deps, stream);
    const runIds = recorded.length === 0 ? await runsNaming(deps, scope.tenantId, sessionId) : recorded.runIds;
    const own = runIds.length > 0 && runIds.at(-1) === scope.runId;
    const earlier = unique((own ? runIds.slice(0, -1) : runIds).filter((runId) => runId !== scope.runId));
    const held: RunLease[] = [];
    try {
      const checked = await checkEarlier(deps, scope.tenantId, earlier, held);
      if ("busy" in checked) {
        const { busy } = checked;
        if (waitUntil === undefined || deps.clock.now() >= waitUntil) {
          throw new YokeError(
            "SESSION_BUSY",
            `session ${sessionId}: its run ${busy.runId} has not ended (${busy.phase}); send again when it has, or pass waitForSession`,
            { details: { tenantId: scope.tenantId, sessionId, runId: busy.runId, phase: busy.phase } },
          );
        }
        deps.logger.info(
          { tenantId: scope.tenantId, runId: scope.runId, sessionId, waitingFor: busy.runId, phase: busy.phase },
          "session busy; waiting for its last run to end",
        );
      } else {
        if (!own)
          await deps.journal.append(
            stream,
            recorded.length,
            sessionDrafts(deps, sessionId, recorded.length === 0, recorded.length === 0 ? runIds : [], scope.runId),
          );
        return checked.runs;
      }
    } catch (error) {
      // Another send recorded its run first: look again (its run is now the session's last).
      if (!YokeError.hasCode(error, "JOURNAL_CONFLICT") || attempt >= 16) throw error;
      continue;
    } finally {
      await Promise.all(held.map((lease) => deps.lease?.leases.release(lease).catch(() => undefined)));
    }
    await deps.sleep(Math.max(1, Math.min(SESSION_POLL_MS, waitUntil - deps.clock.now())), options.signal);
  }
}

/** The runs a session's stream records, in order (a run recorded twice, at each place). */
export async function readSession(deps: Pick<HarnessDeps, "journal">, stream: RunScope): Promise<{ length: number; runIds: string[] }> {
  const runIds: string[] = [];
  let length = 0;
  for await (const event of deps.journal.read(stream)) {
    if (event.type === "session.appended") runIds.push((event.data as { runId: string }).runId);
    length = event.seq + 1;
  }
  return { length, runIds };
}

/** A session's runs from before its stream: the tenant's top-level runs whose `run.started` names it, by start time then id. */
async function runsNaming(deps: HarnessDeps, tenantId: string, sessionId: string): Promise<string[]> {
  const found: { runId: string; at: number }[] = [];
  for await (const summary of deps.journal.listRuns(tenantId)) {
    for await (const event of deps.journal.read({ tenantId, runId: summary.runId })) {
      const data = event.data as { sessionId?: unknown; inboxOf?: unknown; sessionOf?: unknown; parent?: unknown };
      if (
        event.type === "run.started" &&
        data.sessionId === sessionId &&
        data.inboxOf === undefined &&
        data.sessionOf === undefined &&
        data.parent === undefined
      ) {
        found.push({ runId: summary.runId, at: event.at });
      }
      break;
    }
  }
  return found.sort((a, b) => a.at - b.at || (a.runId < b.runId ? -1 : 1)).map((run) => run.runId);
}

type Checked = { runs: EarlierRun[] } | { busy: { runId: string; phase: RunState["phase"] | "starting" } };

async function checkEarlier(deps: HarnessDeps, tenantId: string, runIds: readonly string[], held: RunLease[]): Promise<Checked> {
  const runs: EarlierRun[] = [];
  for (const runId of runIds) {
    const scope = { tenantId, runId };
    const accumulator = new RunStateAccumulator();
    for await (const event of deps.journal.read(scope)) accumulator.apply(event);
    if (accumulator.length === 0) {
      if (await startingElsewhere(deps, scope, held)) return { busy: { runId, phase: "starting" } };
      continue;
    }
    const state = accumulator.snapshot();
    if (state.phase !== "finished") return { busy: { runId, phase: state.phase } };
    runs.push({ runId, state });
  }
  return { runs };
}

/** Whether a recorded run with no `run.started` is still being started: its lease is live (or, without leases, this harness is starting it). */
async function startingElsewhere(deps: HarnessDeps, scope: RunScope, held: RunLease[]): Promise<boolean> {
  if (deps.lease === undefined) return starting.get(deps)?.has(scope.runId) === true;
  try {
    const { leases, ownerId, ttlMs, ownerIsGone } = deps.lease;
    held.push(await leases.acquire(scope, { ownerId, ttlMs, ownerIsGone }));
    return false;
  } catch (error) {
    if (YokeError.hasCode(error, "RUN_LEASE_HELD")) return true;
    throw error;
  }
}

/** The stream's header and the runs found from before it (when the stream is new), then the new run. */
function sessionDrafts(deps: HarnessDeps, sessionId: string, isNew: boolean, found: readonly string[], runId: string): YokeEventDraft[] {
  const at = deps.clock.now();
  const entries = [...found, runId].map((id): YokeEventDraft => ({ type: "session.appended", at, causationId: null, data: { runId: id } }));
  return isNew ? [sessionHeader(deps, sessionId), ...entries] : entries;
}

/** The header of a session's stream. */
export function sessionHeader(deps: HarnessDeps, sessionId: string): YokeEventDraft {
  return {
    type: "run.started",
    at: deps.clock.now(),
    causationId: null,
    data: {
      sessionId,
      task: `session ${sessionId}`,
      tools: [],
      limits: { maxTurns: 1 },
      sessionOf: sessionId,
      release: { runtime: deps.runtimeVersion, eventSchemaVersion: EVENT_SCHEMA_VERSION },
    },
  };
}

/** Each run id once, at its last place (a run recorded again after it was abandoned started later). */
function unique(runIds: readonly string[]): string[] {
  const last = new Map(runIds.map((runId, index) => [runId, index] as const));
  return runIds.filter((runId, index) => last.get(runId) === index);
}
