import { YokeError, type JournalEvent } from "@yoke/protocol";
import type { Harness } from "../harness-interface.js";
import type { ResumeOptions, StartOptions } from "../run-options.js";
import { isReplayCrash, type ReplayTape } from "./replay-tape.js";

/** How the drive ended: the record's end reached (finished or waiting), or the record stops mid-run. */
export interface DriveEnd {
  readonly status: "finished" | "waiting" | "in_flight";
  /** Harnesses driven: one, plus one per recorded process death (each resumed on a fresh harness, as the original was). */
  readonly processes: number;
}

/**
 * Re-drives the recorded run on harnesses from `fresh`: starts it as `run.started` says, then
 * after each call looks at the record's next event to know what the outside world did next
 * (a person's approval, denial, input or close; changed settings; a resume). A call the
 * record has no answer for (a model response, a tool outcome) ends that harness as a crash,
 * and the run is resumed on a fresh one. When a resume makes no progress the record stops
 * there: the run was in flight when it was recorded.
 */
export async function driveRecorded(tape: ReplayTape, fresh: () => Harness): Promise<DriveEnd> {
  const { runId } = tape.recorded.scope;
  const recorded = tape.events(runId);
  let harness = fresh();
  let processes = 1;
  const started = recorded[0]!.data as unknown as StartedData;
  const given = { joinsSession: tape.joinsSession, delegation: givenDelegation(recorded) };
  let call: () => Promise<unknown> = () => harness.start(started.task, { ...startOptions(runId, started, given), signal: tape.caller.signal });
  let idle = 0;
  for (;;) {
    const before = tape.lengthOf(runId);
    tape.caller = new AbortController();
    tape.ceiling = ceilingAfter(recorded, before);
    try {
      await call();
    } catch (error) {
      if (tape.divergence !== undefined) throw tape.divergence;
      // Any other typed throw is the harness's answer to this call (the record holds what it journaled first).
      if (!isReplayCrash(error) && !YokeError.isInstance(error)) throw error;
    }
    if (tape.divergence !== undefined) throw tape.divergence;
    const length = tape.lengthOf(runId);
    // Past the record's end an append is a divergence already; at its end, the run ends as recorded.
    if (length >= recorded.length) return { status: endOf(recorded), processes };
    idle = length === before ? idle + 1 : 0;
    if (idle >= 2) return finishStalled(tape, runId, length);
    if (tape.crashed || idle > 0) {
      tape.crashed = false;
      harness = fresh();
      processes += 1;
      call = () => harness.resume(runId, { signal: tape.caller.signal });
      continue;
    }
    call = nextCall(
      () => harness,
      runId,
      recorded[length]!,
      recorded[length - 1],
      () => tape.caller.signal,
    );
  }
}

interface StartedData {
  readonly task: string;
  readonly sessionId: string;
  readonly principal?: { id: string; authenticated: boolean; scopes: string[] };
  readonly settings?: StartOptions["settings"];
  readonly continues?: readonly unknown[];
}

function startOptions(runId: string, started: StartedData, given: { joinsSession: boolean; delegation: unknown }): StartOptions {
  return {
    runId,
    ...(started.principal === undefined ? {} : { principal: started.principal }),
    ...(started.settings === undefined ? {} : { settings: started.settings }),
    ...(started.continues === undefined && !given.joinsSession ? {} : { sessionId: started.sessionId }),
    ...(given.delegation === undefined ? {} : { delegation: given.delegation as NonNullable<StartOptions["delegation"]> }),
  };
}

/**
 * The delegation the caller gave to `start`: the run pinned it in its first transaction
 * (`run.delegated` before its first turn) with source `application`. One a planner proposed is
 * the harness's own code, and is planned again.
 */
function givenDelegation(recorded: readonly JournalEvent[]): unknown {
  for (const event of recorded) {
    if (event.type === "turn.started") return undefined;
    if (event.type !== "run.delegated") continue;
    const { source, ...delegation } = (event.data as { delegation: { source?: string } }).delegation;
    return source === "application" ? delegation : undefined;
  }
  return undefined;
}

/** The harness call that makes the run journal `next`: what the recorded caller did at this point. */
function nextCall(
  harness: () => Harness,
  runId: string,
  next: JournalEvent,
  waitingBefore: JournalEvent | undefined,
  signal: () => AbortSignal,
): () => Promise<unknown> {
  const data = next.data as Record<string, unknown>;
  const resume = (options: ResumeOptions = {}) => harness().resume(runId, { ...options, signal: signal() });
  switch (next.type) {
    case "approval.granted": {
      const binding = data.binding as { expiresAt?: number } | undefined;
      return () =>
        harness().approve(runId, data.approvalId as string, {
          approver: data.approver as string,
          ...(binding?.expiresAt === undefined ? {} : { expiresAt: binding.expiresAt }),
        });
    }
    case "approval.voided": {
      const approver = approverOfLateApproval(data);
      return approver === undefined ? () => resume() : () => harness().approve(runId, data.approvalId as string, { approver });
    }
    case "approval.denied":
      return () => harness().deny(runId, data.approvalId as string, { approver: data.approver as string, reason: data.reason as string });
    case "settings.changed":
      return () => resume({ settings: data.settings as never });
    case "input.added": {
      const text = (data.content as { type: string; text?: string }[]).map((part) => part.text ?? "").join("");
      return data.source === "operator" ? () => resume({ input: text }) : () => resume();
    }
    case "run.completed": {
      const close = closeOf(data.outcome as { status: string; reason?: string }, waitingBefore);
      return close === undefined ? () => resume() : () => resume({ close }).catch(() => resume());
    }
    default:
      return () => resume();
  }
}

/**
 * What the person's close said: a run waiting for a person, closed, ends with the wait's reason
 * and the close's (`<waiting reason> (closed: <close>)`, or the wait's reason alone for an
 * empty close). Undefined when the end was no close (the run did not wait right before it).
 */
function closeOf(outcome: { status: string; reason?: string }, waitingBefore: JournalEvent | undefined): string | undefined {
  if (outcome.status !== "refused" && outcome.status !== "escalated") return undefined;
  if (outcome.reason === undefined || waitingBefore?.type !== "run.waiting") return undefined;
  const waited = (waitingBefore.data as { reason?: string }).reason ?? "";
  if (outcome.reason === waited) return "";
  const prefix = `${waited} (closed: `;
  // A reason in another shape was not written by a close the current code makes: passed whole, it diverges where it differs.
  return outcome.reason.startsWith(prefix) && outcome.reason.endsWith(")") ? outcome.reason.slice(prefix.length, -1) : outcome.reason;
}

/** Whether the caller's act made the record's event at `seq` (an approval, a denial, changed settings, a person's input or close). */
function isCallerEvent(recorded: readonly JournalEvent[], seq: number): boolean {
  const event = recorded[seq]!;
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case "approval.granted":
    case "approval.denied":
    case "settings.changed":
      return true;
    case "approval.voided":
      return approverOfLateApproval(data) !== undefined;
    case "input.added":
      return data.source === "operator";
    case "run.completed":
      return recorded[seq - 1]?.type === "run.waiting";
    default:
      return false;
  }
}

/** The time of the last event before the caller's next act after `from` (that act's own event excluded): no time past it exists yet. */
function ceilingAfter(recorded: readonly JournalEvent[], from: number): number {
  for (let seq = from + 1; seq < recorded.length; seq += 1) {
    if (isCallerEvent(recorded, seq)) return recorded[seq - 1]!.at;
  }
  return Number.POSITIVE_INFINITY;
}

/** A late approval voids the request; the record keeps who approved only in the reason. */
function approverOfLateApproval(data: Record<string, unknown>): string | undefined {
  return /^(.+) approved at \d+, after the request expired/.exec(String(data.reason))?.[1];
}

function endOf(recorded: readonly JournalEvent[]): DriveEnd["status"] {
  const last = recorded[recorded.length - 1]!;
  if (last.type === "run.completed" || last.type === "run.failed") return "finished";
  return last.type === "run.waiting" || last.type === "action.approval_requested" ? "waiting" : "in_flight";
}

/** The run stopped short of the record without a reason the record explains: the record runs on, so the replay lacks events. */
function finishStalled(tape: ReplayTape, runId: string, length: number): never {
  const missing = tape.events(runId)[length]!;
  const { tenantId } = tape.recorded.scope;
  throw new YokeError("REPLAY_DIVERGED", `run ${runId} diverged at event ${length} (${missing.type}): replay journaled nothing there`, {
    details: { tenantId, runId, seq: length, type: missing.type, path: "type", recorded: missing.type, replayed: undefined },
  });
}
