import { createHash } from "node:crypto";
import {
  EVENT_SCHEMA_VERSION,
  EventDraftSchema,
  GENESIS_HASH,
  JournalEventSchema,
  YokeError,
  canonicalJson,
  type EventDraft,
  type JournalEvent,
  type JournalHead,
  type RunScope,
  type VerifyResult,
} from "@yoke/protocol";

/** The hash of an event: SHA-256 over the canonical JSON of every field but `hash`. */
export function computeEventHash(event: Omit<JournalEvent, "hash">): string {
  const body = canonicalJson({
    schemaVersion: event.schemaVersion,
    tenantId: event.tenantId,
    runId: event.runId,
    seq: event.seq,
    type: event.type,
    at: event.at,
    causationId: event.causationId,
    data: event.data,
    prevHash: event.prevHash,
  });
  return createHash("sha256").update(body).digest("hex");
}

/**
 * Turns drafts into stored events that continue the chain at `head`. Validates every draft
 * and the run-start rule; throws JOURNAL_INVALID_APPEND before anything is written.
 */
export function sealEvents(scope: RunScope, head: JournalHead, drafts: readonly EventDraft[]): JournalEvent[] {
  if (drafts.length === 0) throw new YokeError("JOURNAL_INVALID_APPEND", "an append needs at least one event");
  let prevHash = head.hash;
  return drafts.map((draft, index) => {
    const parsed = EventDraftSchema.safeParse(draft);
    if (!parsed.success) {
      throw new YokeError("JOURNAL_INVALID_APPEND", `event ${index} of the append is malformed: ${parsed.error.message}`, {
        details: { index, type: (draft as { type?: unknown }).type },
        cause: parsed.error,
      });
    }
    const seq = head.length + index;
    if ((seq === 0) !== (parsed.data.type === "run.started")) {
      throw new YokeError(
        "JOURNAL_INVALID_APPEND",
        seq === 0 ? "the first event of a run must be run.started" : "run.started may only be the first event",
        { details: { seq, type: parsed.data.type } },
      );
    }
    const unsealed = {
      schemaVersion: EVENT_SCHEMA_VERSION,
      tenantId: scope.tenantId,
      runId: scope.runId,
      seq,
      type: parsed.data.type,
      at: parsed.data.at,
      causationId: parsed.data.causationId,
      data: parsed.data.data,
      prevHash,
    };
    const hash = computeEventHash(unsealed);
    prevHash = hash;
    return { ...unsealed, hash };
  });
}

/**
 * Checks one event against its expected position in the chain. Returns null when it
 * verifies, or the failure; `verify` and reads share it so neither can accept what the
 * other rejects.
 */
export function checkEvent(
  scope: RunScope,
  expectedSeq: number,
  expectedPrevHash: string,
  candidate: unknown,
): Extract<VerifyResult, { ok: false }> | null {
  const parsed = JournalEventSchema.safeParse(candidate);
  if (!parsed.success) {
    return { ok: false, firstBadSeq: expectedSeq, reason: "malformed", message: parsed.error.message };
  }
  const event = parsed.data;
  if (event.tenantId !== scope.tenantId || event.runId !== scope.runId) {
    return { ok: false, firstBadSeq: expectedSeq, reason: "scope_mismatch", message: "event belongs to another run or tenant" };
  }
  if (event.seq !== expectedSeq) {
    return { ok: false, firstBadSeq: expectedSeq, reason: "sequence_gap", message: `found seq ${event.seq}` };
  }
  if (event.schemaVersion > EVENT_SCHEMA_VERSION) {
    return { ok: false, firstBadSeq: expectedSeq, reason: "malformed", message: `unknown schema version ${event.schemaVersion}` };
  }
  if (event.prevHash !== expectedPrevHash) {
    return { ok: false, firstBadSeq: expectedSeq, reason: "prev_hash_mismatch", message: "predecessor hash does not match" };
  }
  const { hash, ...rest } = event;
  if (computeEventHash(rest) !== hash) {
    return { ok: false, firstBadSeq: expectedSeq, reason: "hash_mismatch", message: "event content does not match its hash" };
  }
  return null;
}

/** The error a read throws for a failed check. */
export function chainError(scope: RunScope, failure: Extract<VerifyResult, { ok: false }>): YokeError {
  const code = failure.reason === "malformed" ? "JOURNAL_CORRUPT" : "JOURNAL_CHAIN_BROKEN";
  return new YokeError(code, `run ${scope.runId}: event ${failure.firstBadSeq} failed verification (${failure.reason}): ${failure.message}`, {
    details: { tenantId: scope.tenantId, runId: scope.runId, seq: failure.firstBadSeq, reason: failure.reason },
  });
}

export const EMPTY_HEAD: JournalHead = { length: 0, hash: GENESIS_HASH };

/** The conflict a stale writer gets. */
export function conflictError(scope: RunScope, expectedSeq: number, actualLength: number): YokeError {
  return new YokeError(
    "JOURNAL_CONFLICT",
    `run ${scope.runId}: append expected sequence ${expectedSeq} but the run has ${actualLength} events`,
    { details: { tenantId: scope.tenantId, runId: scope.runId, expectedSeq, actualSeq: actualLength } },
  );
}
