import { YokeError, reduceRun, type JournalEvent, type YokeEventDraft } from "@yoke/protocol";
import type { ModelCallFailure } from "../model-call.js";
import type { RunContext } from "../run-context.js";
import { Turn, commitTurn } from "../turn/turn.js";

/** Errors whose `run.failed` is already journaled (with the model call's attempts), so the loop does not journal them again. */
const journaled = new WeakSet<object>();

/**
 * Errors the journal itself raised, or that say another writer owns the run: nothing may be
 * appended after them (the append would fail, or write where it must not). REQUEST_MISMATCH:
 * this harness is not configured as the run's was, so it writes nothing to the run.
 */
const UNJOURNALED = new Set<string>([
  "JOURNAL_CONFLICT",
  "JOURNAL_CORRUPT",
  "JOURNAL_CHAIN_BROKEN",
  "JOURNAL_SCHEMA_UNSUPPORTED",
  "JOURNAL_CLOSED",
  "JOURNAL_UNAVAILABLE",
  "JOURNAL_INVALID_APPEND",
  "JOURNAL_TRUNCATED",
  "JOURNAL_WITNESS_INVALID",
  "JOURNAL_READ_ONLY",
  "JOURNAL_KEY_UNAVAILABLE",
  "RUN_LEASE_HELD",
  "RUN_LEASE_LOST",
  "CANCELLED",
  "REQUEST_MISMATCH",
]);

/** The `run.failed` draft for `error`, which stopped the run (in turn `turnId`, when there is one). */
export function runFailedDraft(context: RunContext, error: unknown, model?: ModelCallFailure): YokeEventDraft {
  const turnId = context.accumulator.peek().currentTurnId;
  const requestId = model?.requestId ?? (YokeError.isInstance(error) && typeof error.details.requestId === "string" ? error.details.requestId : undefined);
  return {
    type: "run.failed",
    at: context.deps.clock.now(),
    causationId: turnId ?? null,
    data: {
      ...(turnId === undefined ? {} : { turnId }),
      code: model?.code ?? (YokeError.isInstance(error) ? error.code : "INTERNAL"),
      message: model?.message ?? (error instanceof Error ? error.message : String(error)),
      retryable: model?.retryable ?? (YokeError.isInstance(error) && error.retryable),
      ...(requestId === undefined ? {} : { requestId }),
      ...(model === undefined ? {} : { attempts: model.attempt }),
    },
  };
}

/**
 * Journals the last failed model attempt with the `run.failed` it leads to, in one
 * transaction, and marks `error` as journaled so the loop does not journal it twice.
 */
export async function commitModelFailure(context: RunContext, drafts: readonly YokeEventDraft[], error: unknown): Promise<void> {
  await commitTurn(context, drafts);
  if (typeof error === "object" && error !== null) journaled.add(error);
}

/**
 * Journals `run.failed` for an error that stops the run, so the journal alone says why it
 * stopped; the run stays resumable from its phase. Nothing is written when the run was
 * cancelled, when the error came from the journal or the run's ownership (another writer may
 * own the run), when this harness's request differs from the journaled one (REQUEST_MISMATCH), when it is already journaled, or when the live state no longer matches the
 * journal (a fold or append of this process failed), unless the journal refused that append
 * whole (an event over its maxEventBytes): then `run.failed` follows the journal's last event.
 * A failure to journal it is logged; the caller rethrows the original error either way.
 */
export async function journalRunFailure(context: RunContext, error: unknown): Promise<void> {
  if (context.signal?.aborted) return;
  if (typeof error === "object" && error !== null && journaled.has(error)) return;
  if (YokeError.isInstance(error) && UNJOURNALED.has(error.code)) return;
  const { live } = context;
  const failure = live.failure;
  const refusedAt = failure !== undefined && failure.error === error ? failure.journalLength : undefined;
  if (failure !== undefined && refusedAt === undefined) return;
  try {
    if (refusedAt !== undefined) {
      await appendAfterRefusal(context, error, refusedAt);
      if (typeof error === "object" && error !== null) journaled.add(error);
    } else if (live.pending !== undefined) {
      // Drafts folded ahead of an append that will not happen: the journal ends where they begin.
      const seq = live.pending;
      live.failure = { error };
      await commitFailureAt(context, seq, runFailedDraft(context, error));
    } else {
      await commitTurn(context, [runFailedDraft(context, error)]);
    }
    context.logger.warn({ code: YokeError.isInstance(error) ? error.code : "INTERNAL" }, "run stopped by an error; journaled as run.failed");
  } catch (journalError) {
    context.logger.warn({ code: YokeError.isInstance(journalError) ? journalError.code : "INTERNAL" }, "could not journal run.failed");
  }
}

/**
 * `run.failed` at `journalLength`, where the journal ends after refusing an append whole. The
 * live state ran ahead of it (the refused drafts were folded), so the turn the failure names
 * is the one of the journal's own events, folded again from the journal.
 */
async function appendAfterRefusal(context: RunContext, error: unknown, journalLength: number): Promise<void> {
  const events: JournalEvent[] = [];
  for await (const event of context.deps.journal.read(context.scope, { toSeq: journalLength })) events.push(event);
  const turnId = reduceRun(events).currentTurnId;
  const { turnId: _ahead, ...data } = runFailedDraft(context, error).data as { turnId?: string } & Record<string, unknown>;
  const draft = {
    type: "run.failed",
    at: context.deps.clock.now(),
    causationId: turnId ?? null,
    data: { ...(turnId === undefined ? {} : { turnId }), ...data },
  } as YokeEventDraft;
  await commitFailureAt(context, journalLength, draft);
}

/** `run.failed` at `seq`, where the journal ends while the live state ran past it: a turn of its own, not folded. */
async function commitFailureAt(context: RunContext, seq: number, draft: YokeEventDraft): Promise<void> {
  const turn = Turn.failureAt(context, seq);
  turn.add([draft]);
  await turn.commit();
}
